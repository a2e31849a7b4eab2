// SPDX-License-Identifier: GPL-2.0
/*
 * boot.c - the guard of fat83 fix: whether the vfat it would rename on is a
 * boot or EFI System Partition.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fat83.h"

/* The ESP's type GUID C12A7328-F81F-11D2-BA4B-00A0C93EC93B as stored */
static const unsigned char ESP_GUID[16] = {
	0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8, 0xd2, 0x11,
	0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b,
};

static int read_sys(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* The partition type of @dev by its disk's partition table (MBR, GPT). */
static bool esp_by_table(dev_t dev, char *why, size_t size)
{
	char p[256], buf[256], disk[300];
	unsigned char s[4096];
	unsigned int partno, lbs = 512, i;
	uint64_t lba, nent, esz;
	bool gpt = false, esp = false;
	int fd;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition", major(dev), minor(dev));
	if (read_sys(p, buf, sizeof(buf)) || sscanf(buf, "%u", &partno) != 1 || !partno)
		return false;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../uevent", major(dev), minor(dev));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	i = read(fd, s, sizeof(s) - 1) > 0;
	close(fd);
	if (!i)
		return false;
	s[sizeof(s) - 1] = 0;
	{
		char *d = strstr((char *)s, "DEVNAME=");

		if (!d)
			return false;
		d += 8;
		snprintf(disk, sizeof(disk), "/dev/%.*s", (int)strcspn(d, "\n"), d);
	}
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../queue/logical_block_size",
		 major(dev), minor(dev));
	if (!read_sys(p, buf, sizeof(buf)))
		sscanf(buf, "%u", &lbs);
	if (lbs < 512 || lbs > sizeof(s))
		lbs = 512;
	fd = open(disk, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (pread(fd, s, 512, 0) == 512 && s[510] == 0x55 && s[511] == 0xaa) {
		for (i = 0; i < 4; i++) {
			if (s[446 + 16 * i + 4] == 0xee)
				gpt = true;
			if (i + 1 == partno && s[446 + 16 * i + 4] == 0xef) {
				snprintf(why, size, "partition %u of %s has the MBR type 0xef "
					 "(EFI System), read from its partition table", partno, disk);
				esp = true;
			} else if (i + 1 == partno && s[446 + 16 * i] == 0x80) {
				snprintf(why, size, "partition %u of %s is marked active "
					 "(bootable) in its MBR", partno, disk);
				esp = true;
			}
		}
	}
	if (!esp && gpt && pread(fd, s, lbs, lbs) == (ssize_t)lbs &&
	    !memcmp(s, "EFI PART", 8)) {
		lba = le(s + 72, 8);
		nent = le(s + 80, 4);
		esz = le(s + 84, 4);
		if (partno <= nent && esz >= 16 &&
		    pread(fd, s, 16, lba * lbs + (partno - 1) * esz) == 16 &&
		    !memcmp(s, ESP_GUID, 16)) {
			snprintf(why, size, "partition %u of %s has the GPT type "
				 "C12A7328-F81F-11D2-BA4B-00A0C93EC93B (EFI System), read "
				 "from its partition table", partno, disk);
			esp = true;
		}
	}
	close(fd);
	return esp;
}

/*
 * What in directory @dir marks a boot partition: EFI/, boot/grub/,
 * syslinux/, isolinux/, syslinux's ldlinux.sys or syslinux.cfg, a
 * Raspberry Pi's bootcode.bin, start*.elf, or config.txt with a *.dtb.
 */
static bool boot_files(const char *dir, char *why, size_t size)
{
	static const char *const dirs[] = { "EFI", "boot/grub", "syslinux", "isolinux" };
	char dtb[256] = "";
	bool config = false;
	struct dirent *d;
	struct stat st;
	unsigned int i;
	int fd;
	DIR *D;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!fstatat(fd, dirs[i], &st, 0) && S_ISDIR(st.st_mode)) {
			snprintf(why, size, "%s holds %s/", esc(dir), dirs[i]);
			close(fd);
			return true;
		}
	D = fdopendir(fd);
	if (!D) {
		close(fd);
		return false;
	}
	while ((d = readdir(D))) {
		if (!strcasecmp(d->d_name, "bootcode.bin") ||
		    !fnmatch("start*.elf", d->d_name, FNM_CASEFOLD)) {
			snprintf(why, size, "%s holds %s, a Raspberry Pi's firmware",
				 esc(dir), d->d_name);
			closedir(D);
			return true;
		}
		if (!strcasecmp(d->d_name, "ldlinux.sys") || !strcasecmp(d->d_name, "syslinux.cfg")) {
			snprintf(why, size, "%s holds %s, a syslinux boot loader's", esc(dir), d->d_name);
			closedir(D);
			return true;
		}
		config |= !strcasecmp(d->d_name, "config.txt");
		if (!fnmatch("*.dtb", d->d_name, FNM_CASEFOLD))
			snprintf(dtb, sizeof(dtb), "%s", d->d_name);
	}
	closedir(D);
	if (config && *dtb)
		snprintf(why, size, "%s holds config.txt and %s, a device tree", esc(dir), dtb);
	return config && *dtb;
}

/*
 * Whether the vfat fix would rename on is a boot or EFI System Partition:
 * its mount point, what its top (and the directory given) holds, udev's
 * ID_PART_ENTRY_TYPE, or the partition table.
 */
bool boot_partition(struct ctx *c, char *why, size_t size)
{
	static const char *const points[] = { "/boot", "/boot/efi", "/efi", "/boot/firmware" };
	char p[64], line[512], *v;
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		if (!strcmp(c->mnt.point, points[i])) {
			snprintf(why, size, "it is mounted on %s", points[i]);
			return true;
		}
	/* the top of the filesystem (not "/": the fake vfat of the host test) */
	if (boot_files(c->top, why, size) ||
	    (strcmp(c->mnt.point, "/") && boot_files(c->mnt.point, why, size)))
		return true;
	snprintf(p, sizeof(p), "/run/udev/data/b%u:%u", major(c->dev), minor(c->dev));
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "E:ID_PART_ENTRY_TYPE=", 21))
			continue;
		v = line + 21;
		v[strcspn(v, "\n")] = 0;
		if (!strcasecmp(v, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b") ||
		    !strcasecmp(v, "0xef")) {
			snprintf(why, size, "udev says its partition type is %.64s "
				 "(ID_PART_ENTRY_TYPE: EFI System)", v);
			fclose(f);
			return true;
		}
	}
	if (f)
		fclose(f);
	return esp_by_table(c->dev, why, size);
}

