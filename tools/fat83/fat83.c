// SPDX-License-Identifier: GPL-2.0
/*
 * fat83 - find and fix the names on a vfat volume that a reader of 8.3
 * names only (printer firmware, embedded FAT libraries, DOS) sees under
 * another name than its owner: a long name it sees as BENCHY~1.GCO.
 * This file: the commands and their options (fat83 --help); fat83.h says
 * which file does the rest; README.md how it works.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fat83.h"

#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#endif
#ifndef FSCONFIG_SET_FLAG
#define FSCONFIG_SET_FLAG 0
#endif

#define FAT83_VERSION "3"

const char *prog = "fat83";

/* ------------------------------------------------------------ helpers -- */

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = xrealloc(NULL, a + b + 2);

	if (a) {
		memcpy(p, dir, a);
		p[a++] = '/';
	}
	memcpy(p + a, name, b + 1);
	return p;
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void to_upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s -= 'a' - 'A';
}

void to_lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s += 'a' - 'A';
}

void set_case(char *s, bool lower)
{
	if (lower)
		to_lower(s);
	else
		to_upper(s);
}

/*
 * @s as `ls -b` prints a name: a backslash as \\, the control characters
 * \a \b \t \n \v \f \r as such, every other control character, DEL, C1
 * control and byte of no valid UTF-8 sequence as \ooo; spaces and
 * printable UTF-8 as they are.  Into one of 8 rotating buffers.
 */
const char *esc(const char *s)
{
	static char *buf[8];
	static int next;
	const unsigned char *p = (const unsigned char *)s, *e = p + strlen(s);
	static const char cesc[] = "abtnvfr";
	unsigned int u;
	size_t n, k = 0, i;
	char *o;

	o = buf[next] = xrealloc(buf[next], 4 * strlen(s) + 1);
	next = (next + 1) % 8;
	while (p < e) {
		if (*p == '\\') {
			o[k++] = '\\';
			o[k++] = '\\';
			p++;
		} else if (*p >= 0x07 && *p <= 0x0d) {
			o[k++] = '\\';
			o[k++] = cesc[*p - 0x07];
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			k += sprintf(o + k, "\\%03o", *p++);
		} else if (*p < 0x80) {
			o[k++] = (char)*p++;
		} else {
			n = fat83_utf8_char(p, e, &u);
			if (!u || (u >= 0x80 && u < 0xa0)) {
				for (i = 0; i < n; i++)
					k += sprintf(o + k, "\\%03o", *p++);
			} else {
				memcpy(o + k, p, n);
				k += n;
				p += n;
			}
		}
	}
	o[k] = 0;
	return o;
}

/* @s as one shell word, for a command printed to be pasted (two buffers) */
const char *shw(const char *s)
{
	static char buf[2][4 * 1024 + 8];
	static int next;

	next = !next;
	return fat83_shell_word(s, buf[next], sizeof(buf[next]));
}

/* ---------------------------------------------------------- supported -- */

/*
 * Which of @n symbols /proc/kallsyms names ("ADDR TYPE SYM[\t[MOD]]"):
 * bit i set for @syms[i].  -1 when it cannot be read or is empty
 * (CONFIG_KALLSYMS off).
 */
static int kallsyms_has(const char *const *syms, int n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], *p, *e;
	int found = 0, lines = 0, i;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		lines++;
		p = strchr(line, ' ');
		p = p ? strchr(p + 1, ' ') : NULL;
		if (!p)
			continue;
		p++;
		e = p + strcspn(p, "\t\n");
		for (i = 0; i < n; i++)
			if ((size_t)(e - p) == strlen(syms[i]) && !strncmp(p, syms[i], e - p))
				found |= 1 << i;
	}
	fclose(f);
	return lines ? found : -1;
}

/* Why the DKMS package built nothing for this kernel: its nlc-prepare's line. */
static void dkms_why(void)
{
	char line[1024];
	FILE *p;

	fflush(stdout);
	p = popen("for f in /usr/src/vfat-nolongcreate-*/nlc-prepare; do [ -x \"$f\" ] && "
		  "exec \"$f\" --check \"$(uname -r)\"; done; "
		  "echo 'vfat-nolongcreate-dkms is not installed'", "r");
	if (!p)
		return;
	if (fgets(line, sizeof(line), p))
		printf("%s: %s%s", prog, line, strchr(line, '\n') ? "" : "\n");
	pclose(p);
}

/*
 * Whether a vfat mount of this kernel takes nolongcreate, without a
 * device.  Where vfat is loaded (or built in) and the kernel lists its
 * symbols, the series' exported helper fat_short_name_shown tells (the
 * DKMS modules export it too): a plain file read, which works where mount
 * system calls are filtered (systemd-udevd's unit allows no fsopen).
 * Otherwise fsopen("vfat") (which loads the module) and the flag given to
 * the context: a vfat on the new mount API (6.12 has it, 6.1 not) refuses
 * a key it does not know, an older one takes any key and parses at mount
 * time, so then the symbols are asked again.  Exit status 0: yes, 1: no,
 * 2: cannot tell.
 */
static int supported(void)
{
	static const char *const syms[] = { "fat_short_name_shown", "vfat_lookup" };
	int k = kallsyms_has(syms, 2), fd;
	bool yes;

	if (k >= 0 && (k & 2)) {
		yes = k & 1;
	} else {
		fd = syscall(SYS_fsopen, "vfat", FSOPEN_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV) {
				printf("%s: no vfat in this kernel\n", prog);
				return 1;
			}
			warnf("fsopen vfat: %s%s", strerror(errno),
			      errno == EPERM ? " (needs root, and mount system calls)" : "");
			return 2;
		}
		if (syscall(SYS_fsconfig, fd, FSCONFIG_SET_FLAG, "nolongcreate", NULL, 0)) {
			yes = false;
		} else if (syscall(SYS_fsconfig, fd, FSCONFIG_SET_FLAG,
				   "fat83-no-such-option", NULL, 0)) {
			yes = true;		/* vfat parsed the key: it knows it */
		} else {
			k = kallsyms_has(syms, 2);
			if (k < 0) {
				close(fd);
				warnf("vfat takes any option before the mount and "
				      "/proc/kallsyms cannot tell");
				return 2;
			}
			yes = k & 1;
		}
		close(fd);
	}
	printf("%s: this kernel's vfat %s nolongcreate\n", prog, yes ? "takes" : "lacks");
	if (!yes)
		dkms_why();
	return yes ? 0 : 1;
}

/* ------------------------------------------------------------- main -- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: fat83 check [--case] DIR\n"
"       fat83 fix [--dry-run] [--force] [--map FILE] [--journal FILE] DIR\n"
"       fat83 undo [--journal FILE] DIR\n"
"       fat83 name [--in DIR] NAME...\n"
"       fat83 put [--dry-run] [--replace] FILE... DIR\n"
"       fat83 supported\n"
"\n"
"Names on a vfat volume that readers of 8.3 names only (printer firmware,\n"
"embedded FAT libraries, DOS) see under another name, e.g. BENCHY~1.GCO for\n"
"\"Benchy Final.gcode\".\n"
"\n"
"  check DIR     list every entry below DIR with a long name those readers do\n"
"                not see, and the 8.3 name they see; --case also the names\n"
"                they see in another case (readme.txt is README.TXT to them);\n"
"                also 8.3 names with '^' or non-ASCII, which some firmware\n"
"                cannot open, and what a put cut short left (F83Pnnnn.TMP).\n"
"                Exit status 0: none, 1: some, 2: error.\n"
"  fix DIR       rename each such entry to an 8.3 name made from its long\n"
"                name (BENCHYFI.GCO; BENCHYF1.GCO... when taken), one\n"
"                rename each that never replaces a name; prints old -> new.\n"
"                --dry-run: print, rename nothing.  --map FILE: lines\n"
"                \"old<TAB>new\", old a path below DIR as check prints it, new\n"
"                an 8.3 name: these renames instead of suggested ones (a bad\n"
"                line: nothing is renamed).  Each rename is written and\n"
"                fsync'd to DIR/FAT83UND.LOG before it is made (--journal\n"
"                FILE: there instead).  Left alone: dot-names, hidden and\n"
"                system entries, System Volume Information, long names over\n"
"                255 bytes.  A boot partition (EFI System, /boot, a Pi's\n"
"                firmware, GRUB's) is refused unless --force.  On a\n"
"                read-only mount: the plan only.\n"
"                Exit status 0: all done, 1: some not, 2: error.\n"
"  undo DIR      rename back what fix renamed, from its journal, the last\n"
"                first, never over an existing name (a conflict is said and\n"
"                kept in the journal; the journal goes when all is undone).\n"
"                Needs a mount that takes long names (not nolongcreate).\n"
"                Exit status 0: all undone, 1: conflicts, 2: error.\n"
"  name NAME...  print the 8.3 name fix would give each NAME; --in DIR: one\n"
"                not taken in DIR.\n"
"  put FILE... DIR  copy each FILE into DIR under the 8.3 name fix would give\n"
"                it (CUBE1.GCO keeps its name; \"Benchy Final.gcode\" is\n"
"                BENCHYFI.GCO), never over an existing file (the next free\n"
"                name: BENCHYF1.GCO), for a file a program cannot write to a\n"
"                nolongcreate mount itself (a slicer's export); prints\n"
"                FILE -> DIR/NAME.  Each file is written to a scratch name\n"
"                F83Pnnnn.TMP in DIR and fsync'd, then renamed to its name:\n"
"                a card pulled mid-copy leaves no file cut short under its\n"
"                name (at most an F83Pnnnn.TMP, which check and put point\n"
"                out); on any error the files made are removed.\n"
"                --replace: when that name (CUBE1.GCO) is a file in DIR,\n"
"                replace it (one rename), never a directory.\n"
"                --dry-run: print, copy nothing.  Exit\n"
"                status 0: copied, 1: copied, but the mount gave one a long\n"
"                name, 2: error, nothing copied.\n"
"  supported     whether the running kernel's vfat takes the nolongcreate\n"
"                mount option (needs root).  Exit status 0: yes, 1: no,\n"
"                2: cannot tell.\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "case", no_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "map", required_argument, NULL, 'm' },
		{ "in", required_argument, NULL, 'i' },
		{ "force", no_argument, NULL, 'f' },
		{ "journal", required_argument, NULL, 'j' },
		{ "replace", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c = { 0 };
	const char *sub, *mapfile = NULL, *in = NULL;
	int o, fd, i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(sub, "--version")) {
		printf("fat83 %s\n", FAT83_VERSION);
		return 0;
	}
	if (!strcmp(sub, "supported")) {
		if (argc != 2) {
			usage(stderr);
			return 2;
		}
		return supported();
	}
	if (strcmp(sub, "check") && strcmp(sub, "fix") && strcmp(sub, "name") &&
	    strcmp(sub, "undo") && strcmp(sub, "put")) {
		warnf("unknown command '%s'", sub);
		usage(stderr);
		return 2;
	}
	argv++;
	argc--;
	while ((o = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (o) {
		case 'c': c.show_case = true; break;
		case 'n': c.dry_run = true; break;
		case 'm': mapfile = optarg; break;
		case 'i': in = optarg; break;
		case 'f': c.force = true; break;
		case 'j': c.journal = optarg; break;
		case 'r': c.replace = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if ((c.show_case && strcmp(sub, "check")) ||
	    (c.dry_run && strcmp(sub, "fix") && strcmp(sub, "put")) ||
	    (mapfile && strcmp(sub, "fix")) ||
	    (in && strcmp(sub, "name")) || (c.force && strcmp(sub, "fix")) ||
	    (c.replace && strcmp(sub, "put")) ||
	    (c.journal && strcmp(sub, "fix") && strcmp(sub, "undo"))) {
		warnf("%s: option not for this command", sub);
		return 2;
	}

	if (!strcmp(sub, "name")) {
		struct dirlist dl = { 0 };
		struct taken t = { .dl = &dl };
		char out[FAT83_NAME_SIZE];
		int rc = 0;

		if (optind >= argc) {
			usage(stderr);
			return 2;
		}
		if (in) {
			fd = open_top(&c, in);
			if (fd < 0)
				return 2;
			o = read_dir(fd, &dl);
			close(fd);
			if (o) {
				warnf("%s: %s", in, strerror(-o));
				return 2;
			}
		}
		for (i = optind; i < argc; i++) {
			if (fat83_suggest(argv[i], is_taken, &t, out) < 0) {
				warnf("%s: no free 8.3 name", argv[i]);
				rc = 2;
				continue;
			}
			add_extra(&t, out);
			printf("%s\n", out);
		}
		free_extra(&t);
		free_dirlist(&dl);
		return rc;
	}

	if (!strcmp(sub, "put")) {
		if (argc - optind < 2) {
			usage(stderr);
			return 2;
		}
		fd = open_top(&c, argv[argc - 1]);
		if (fd < 0)
			return 2;
		o = run_put(&c, fd, argv + optind, argc - 1 - optind);
		close(fd);
		return o;
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	c.cmd = !strcmp(sub, "check") ? CHECK : !strcmp(sub, "fix") ? FIX : UNDO;
	c.jfd = c.jdir = -1;
	if (mapfile && read_map(&c, mapfile))
		return 2;
	fd = open_top(&c, argv[optind]);
	if (fd < 0)
		return 2;
	if (c.cmd != CHECK && journal_at(&c, fd)) {
		close(fd);
		return 2;
	}
	if (c.cmd == UNDO) {
		if (c.rdonly) {
			warnf("%s is mounted read-only: nothing can be renamed back "
			      "(sudo mount -o remount,rw %s)", esc(c.top), shw(c.mnt.point));
			close(fd);
			return 2;
		}
		if (c.mnt.nolongcreate) {
			warnf("%s is mounted with nolongcreate, which refuses the old long "
			      "names: mount it with longcreate first (sudo mount -o "
			      "remount,longcreate %s), then fat83 undo", esc(c.top),
			      shw(c.mnt.point));
			close(fd);
			return 2;
		}
		o = run_undo(&c, fd);
		close(fd);
		return o;
	}
	if (c.cmd == FIX) {
		char why[512];

		if (boot_partition(&c, why, sizeof(why))) {
			if (!c.force) {
				warnf("%s: refused: a boot or EFI System Partition (%s); its "
				      "names are the firmware's and the boot loader's: "
				      "fat83 fix --force renames there all the same", esc(c.top),
				      why);
				close(fd);
				return 2;
			}
			warnf("%s: a boot or EFI System Partition (%s): --force, so "
			      "renaming all the same", esc(c.top), why);
		}
		printf("%s: %s: vfat, shortname=%s%s: new names in %s case\n", prog,
		       esc(c.top), c.mnt.shortname, c.mnt.nolongcreate ? ", nolongcreate" : "",
		       c.mnt.lower ? "lower" : "upper");
		if (c.rdonly)
			printf("%s: %s is mounted read-only: nothing will be renamed; the plan "
			       "follows (sudo mount -o remount,rw %s, then fat83 fix again)\n",
			       prog, esc(c.top), shw(c.mnt.point));
	}
	walk(&c, fd, "", 0);
	if (c.cmd == CHECK) {
		close(fd);
		if (c.errors)
			return 2;
		if (!c.nlong && !c.ncase && !c.noverlong && !c.nodd && !c.nput) {
			printf("%s: %s: every name is an 8.3 name%s\n", prog, esc(c.top),
			       c.show_case ? " in the case 8.3 readers see" : "");
			return 0;
		}
		printf("%s: %s: %lu long name(s) 8.3 readers do not see", prog, esc(c.top),
		       c.nlong + c.noverlong);
		if (c.show_case)
			printf(", %lu name(s) they see in another case", c.ncase);
		printf(", %lu 8.3 name(s) some firmware cannot open, %lu file(s) left by a "
		       "put stopped short\n", c.nodd, c.nput);
		return 1;
	}
	for (size_t k = 0; k < c.nmap; k++)
		if (!c.map[k].used) {
			warnf("%s:%u: %s: no such entry below %s", mapfile, c.map[k].line,
			      esc(c.map[k].old), esc(c.top));
			c.map_errors++;
		}
	if (c.map_errors) {
		warnf("%lu error(s) in the map: nothing renamed", c.map_errors);
		close(fd);
		return 2;
	}
	if (c.errors) {
		warnf("%lu error(s) reading %s: nothing renamed", c.errors, esc(c.top));
		close(fd);
		return 2;
	}
	o = run_fix(&c, fd);
	close(fd);
	return o;
}

