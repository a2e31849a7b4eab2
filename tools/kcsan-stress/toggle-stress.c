// SPDX-License-Identifier: GPL-2.0
/*
 * toggle-stress DIR SECONDS - remount DIR (a vfat mount) with nolongcreate
 * and longcreate back to back, with no pause, while two threads ask it to
 * create names: the load under which KCSAN (the kcsan config) sees a race
 * on the flag, if there is one (docs/testing.md, KCSAN).  The creates are
 * mostly of a name vfat refuses under both options ("A*B.TXT": EINVAL from
 * vfat_build_slots(), after vfat_add_entry() read the flag), so that
 * nothing is written and neither the creates nor the remounts' sync wait
 * for I/O; one in 64 creates and unlinks an 8.3 name.  The kselftest
 * toggle_under_load_is_atomic pauses 20 ms between remounts: it checks
 * what the creates see, not KCSAN's odds.  Static, for qemu-run.sh --run.
 * Prints its counts; exit status 0 unless a call failed unexpectedly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static volatile bool stop;
static unsigned long creates[2], refused[2];
static int bad;

static void *worker(void *arg)
{
	long t = (long)arg;
	char path[4096];
	unsigned long i = 0;

	while (!stop) {
		int fd;

		if (++i % 64) {
			snprintf(path, sizeof(path), "%s/A*B.TXT", dir);
			fd = open(path, O_CREAT | O_WRONLY, 0644);
			if (fd >= 0 || (errno != EINVAL && errno != ENAMETOOLONG)) {
				fprintf(stderr, "open %s: %s, expected EINVAL or ENAMETOOLONG\n", path,
					fd >= 0 ? "created" : strerror(errno));
				__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
				break;
			}
			refused[t]++;
			continue;
		}
		/* 8.3 as typed: accepted under both options */
		snprintf(path, sizeof(path), "%s/T%ldF%lu.TXT", dir, t, i % 1000);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			fprintf(stderr, "open %s: %s\n", path, strerror(errno));
			__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
			break;
		}
		close(fd);
		creates[t]++;
		unlink(path);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid[2];
	unsigned long remounts = 0;
	time_t end;
	long t;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DIR SECONDS\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	end = time(NULL) + atoi(argv[2]);
	for (t = 0; t < 2; t++)
		pthread_create(&tid[t], NULL, worker, (void *)t);
	while (time(NULL) < end && !__atomic_load_n(&bad, __ATOMIC_RELAXED)) {
		if (mount(NULL, dir, NULL, MS_REMOUNT,
			  remounts & 1 ? "longcreate" : "nolongcreate")) {
			perror("remount");
			bad = 1;
			break;
		}
		remounts++;
	}
	stop = true;
	for (t = 0; t < 2; t++)
		pthread_join(tid[t], NULL);
	printf("toggle-stress: %lu remounts, %lu+%lu creates, %lu+%lu refused\n",
	       remounts, creates[0], creates[1], refused[0], refused[1]);
	return bad;
}
