// SPDX-License-Identifier: GPL-2.0
/*
 * chmod-stress DIR SECONDS - on a vfat mount DIR, one thread flips a
 * file's write bits with chmod (0755, 0555: setattr_copy() in fs/attr.c
 * writes i_mode under the inode lock) while two threads read its
 * attributes with FAT_IOCTL_GET_ATTRIBUTES (fat_ioctl_get_attributes()
 * reads i_mode under the shared inode lock).  The load under which KCSAN
 * sees a race between fs/fat and core code when fs/fat drops that lock:
 * tools/kcsan-stress/mutants/fat-get-attributes-without-i_rwsem.patch,
 * run by scripts/kcsan-mutant.sh.  Every answer is checked: ATTR_RO set
 * or not, nothing else changes.  Static, for qemu-run.sh --run.  Prints
 * its counts; exit status 0 unless a call failed or an answer was wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/msdos_fs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[4096];
static int fd;
static volatile bool stop;
static unsigned long chmods, reads[2], ro_seen[2];
static int bad;
static __u32 base; /* the attributes but ATTR_RO, as first read */

static void fail(const char *what)
{
	fprintf(stderr, "chmod-stress: %s: %s\n", what, strerror(errno));
	__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
}

static void *flipper(void *arg)
{
	(void)arg;
	while (!stop) {
		if (chmod(path, chmods & 1 ? 0755 : 0555)) {
			fail("chmod");
			break;
		}
		chmods++;
	}
	return NULL;
}

static void *reader(void *arg)
{
	long t = (long)arg;
	__u32 attr;

	while (!stop) {
		if (ioctl(fd, FAT_IOCTL_GET_ATTRIBUTES, &attr)) {
			fail("FAT_IOCTL_GET_ATTRIBUTES");
			break;
		}
		if ((attr & ~(__u32)ATTR_RO) != base) {
			fprintf(stderr, "chmod-stress: attributes 0x%x, expected 0x%x or 0x%x\n",
				attr, base, base | ATTR_RO);
			__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
			break;
		}
		ro_seen[t] += !!(attr & ATTR_RO);
		reads[t]++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[3];
	int secs;
	long t;

	if (argc != 3 || (secs = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: %s DIR SECONDS\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/CHMOD.TXT", argv[1]);
	fd = open(path, O_CREAT | O_RDONLY, 0755);
	if (fd < 0) {
		fail(path);
		return 1;
	}
	if (ioctl(fd, FAT_IOCTL_GET_ATTRIBUTES, &base)) {
		fail("FAT_IOCTL_GET_ATTRIBUTES");
		return 1;
	}
	base &= ~(__u32)ATTR_RO;
	if (pthread_create(&th[0], NULL, flipper, NULL))
		return 1;
	for (t = 0; t < 2; t++)
		if (pthread_create(&th[t + 1], NULL, reader, (void *)t))
			return 1;
	sleep(secs);
	stop = true;
	for (t = 0; t < 3; t++)
		pthread_join(th[t], NULL);
	printf("chmod-stress: %lu chmods, %lu + %lu attribute reads (read-only in %lu + %lu)\n",
	       chmods, reads[0], reads[1], ro_seen[0], ro_seen[1]);
	if (!chmods || !reads[0] || !reads[1] || (!ro_seen[0] && !ro_seen[1])) {
		fprintf(stderr, "chmod-stress: a thread made no progress or never saw ATTR_RO\n");
		bad = 1;
	}
	close(fd);
	unlink(path);
	return bad;
}
