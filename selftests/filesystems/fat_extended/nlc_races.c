// SPDX-License-Identifier: GPL-2.0
/*
 * Toggling the option by remount while threads create names: each create
 * sees the option as it was before or after a remount, never half of it,
 * and the disk holds long names exactly for the creates that succeeded.
 */
#include "nlc.h"
#include <pthread.h>

#define NLC_THREADS 3
#define NLC_MAX_CREATES 3000	/* per thread */
#define NLC_MAX_REMOUNTS 2000
#define NLC_PER_DIR 40		/* creates per directory */
/*
 * How long each variant toggles.  Under TCG, 1 s gives ~45 remounts and
 * ~140 long creates wholly inside nolongcreate windows per variant.
 */
#define NLC_TOGGLE_MS 1000

struct nlc_create {
	struct timespec start, end;
	unsigned int seq;
	int err;
	bool lng;
};

struct nlc_remount_ev {
	struct timespec start, end;
	bool nolong;
	int err;
};

struct nlc_load {
	struct _test_data_nlc *self;
	bool stop;		/* __atomic */
	unsigned int thread;
	struct nlc_create *ev;
	unsigned int nr;
	int setup_err;
};

static void nlc_load_name(char *buf, size_t size, const char *mnt,
			  unsigned int t, unsigned int seq, bool lng)
{
	unsigned int d = seq / NLC_PER_DIR;

	if (lng)
		snprintf(buf, size, "%s/T%u/D%u/long name t%u n%06u.txt", mnt,
			 t, d, t, seq);
	else
		snprintf(buf, size, "%s/T%u/D%u/S%u%06u.TXT", mnt, t, d, t,
			 seq);
}

static void *nlc_load_worker(void *arg)
{
	struct nlc_load *l = arg;
	struct timespec pause = { 0, 500000 };
	char path[PATH_MAX];
	unsigned int seq;

	for (seq = 0; seq < NLC_MAX_CREATES &&
	     !__atomic_load_n(&l->stop, __ATOMIC_RELAXED); seq++) {
		struct nlc_create *c = &l->ev[l->nr];

		if (!(seq % NLC_PER_DIR)) {
			snprintf(path, sizeof(path), "%s/T%u/D%u", l->self->mnt,
				 l->thread, seq / NLC_PER_DIR);
			if (mkdir(path, 0755)) {
				l->setup_err = errno;
				break;
			}
		}
		c->seq = seq;
		c->lng = seq & 1;
		nlc_load_name(path, sizeof(path), l->self->mnt, l->thread, seq,
			      c->lng);
		clock_gettime(CLOCK_MONOTONIC, &c->start);
		c->err = nlc_creat(path);
		clock_gettime(CLOCK_MONOTONIC, &c->end);
		l->nr++;
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static int nlc_ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

/* Per thread and sequence number: did its create succeed? */
struct nlc_found {
	unsigned char ok[NLC_THREADS][NLC_MAX_CREATES];	/* 1: created */
	unsigned char seen[NLC_THREADS][NLC_MAX_CREATES];
	unsigned int longs, shorts, lfn, lfn_named, bad;
	char bad_name[128];
};

static int nlc_found_cb(const struct fat_raw_dir *dir, unsigned int idx,
			unsigned int depth, void *arg)
{
	const struct msdos_dir_entry *de = &dir->ents[idx];
	struct nlc_found *f = arg;
	unsigned int t, seq, first;
	char name[1024];
	int n, len;

	(void)depth;
	if (fat_raw_is_lfn(de)) {
		f->lfn++;
		return 0;
	}
	if (!fat_raw_is_sfn(de) || (de->attr & ATTR_DIR))
		return 0;
	n = fat_raw_long_name(dir, idx, name, sizeof(name), &first);
	if (!n) {
		f->shorts++;
		return 0;
	}
	f->lfn_named += n;
	f->longs++;
	len = 0;
	if (sscanf(name, "long name t%u n%u.txt%n", &t, &seq, &len) != 2 ||
	    (size_t)len != strlen(name) || t >= NLC_THREADS ||
	    seq >= NLC_MAX_CREATES || f->ok[t][seq] != 1 || f->seen[t][seq]) {
		if (!f->bad)
			snprintf(f->bad_name, sizeof(f->bad_name), "%s", name);
		f->bad++;
		return 0;
	}
	f->seen[t][seq] = 1;
	return 0;
}

TEST_F_TIMEOUT(nlc, toggle_under_load_is_atomic, 180)
{
	struct nlc_load load[NLC_THREADS];
	struct nlc_remount_ev *rm;
	struct nlc_found *found;
	struct timespec now, deadline, pause = { 0, 20000000 };
	pthread_t tid[NLC_THREADS];
	unsigned int nr_rm = 0, t, i, k;
	unsigned int refused_sure = 0, accepted_sure = 0;
	unsigned int long_ok = 0, short_ok = 0;
	char path[PATH_MAX];

	if (nlc_skipped(_metadata, self))
		return;
	rm = calloc(NLC_MAX_REMOUNTS, sizeof(*rm));
	found = calloc(1, sizeof(*found));
	ASSERT_NE(NULL, rm);
	ASSERT_NE(NULL, found);
	nlc_mount(_metadata, self, variant, "longcreate");
	for (t = 0; t < NLC_THREADS; t++) {
		snprintf(path, sizeof(path), "%s/T%u", self->mnt, t);
		ASSERT_EQ(0, mkdir(path, 0755));
		memset(&load[t], 0, sizeof(load[t]));
		load[t].self = self;
		load[t].thread = t;
		load[t].ev = calloc(NLC_MAX_CREATES, sizeof(*load[t].ev));
		ASSERT_NE(NULL, load[t].ev);
	}
	for (t = 0; t < NLC_THREADS; t++)
		ASSERT_EQ(0, pthread_create(&tid[t], NULL, nlc_load_worker,
					    &load[t]));

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += NLC_TOGGLE_MS / 1000;
	deadline.tv_nsec += (NLC_TOGGLE_MS % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	do {
		struct nlc_remount_ev *r = &rm[nr_rm];

		nanosleep(&pause, NULL);
		r->nolong = !(nr_rm & 1);
		clock_gettime(CLOCK_MONOTONIC, &r->start);
		r->err = nlc_remount(self, 0, r->nolong ? "nolongcreate" :
							  "longcreate");
		clock_gettime(CLOCK_MONOTONIC, &r->end);
		nr_rm++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (nlc_ts_cmp(&now, &deadline) < 0 &&
		 nr_rm < NLC_MAX_REMOUNTS);
	for (t = 0; t < NLC_THREADS; t++)
		__atomic_store_n(&load[t].stop, true, __ATOMIC_RELAXED);
	for (t = 0; t < NLC_THREADS; t++)
		pthread_join(tid[t], NULL);
	TH_LOG("%u remounts, %u+%u+%u creates", nr_rm, load[0].nr, load[1].nr,
	       load[2].nr);

	for (i = 0; i < nr_rm; i++)
		ASSERT_EQ(0, rm[i].err);
	for (t = 0; t < NLC_THREADS; t++) {
		ASSERT_EQ(0, load[t].setup_err);
		for (i = 0; i < load[t].nr; i++) {
			struct nlc_create *c = &load[t].ev[i];
			int window = -1;	/* 0: longcreate, 1: nolongcreate */

			if (!c->lng) {
				EXPECT_EQ(0, c->err) {
					TH_LOG("8.3 create t%u n%u: %s", t,
					       c->seq, strerror(c->err));
				}
				short_ok += !c->err;
				continue;
			}
			EXPECT_TRUE(!c->err || c->err == ENAMETOOLONG) {
				TH_LOG("long create t%u n%u: %s", t, c->seq,
				       strerror(c->err));
			}
			if (!c->err) {
				long_ok++;
				found->ok[t][c->seq] = 1;
			}
			/* wholly after remount k returned, before k+1 began? */
			if (nlc_ts_cmp(&c->end, &rm[0].start) < 0)
				window = 0;
			for (k = 0; k < nr_rm && window < 0; k++) {
				if (nlc_ts_cmp(&c->start, &rm[k].end) <= 0)
					break;
				if (k + 1 < nr_rm &&
				    nlc_ts_cmp(&c->end, &rm[k + 1].start) >= 0)
					continue;
				window = rm[k].nolong;
			}
			if (window == 1) {
				refused_sure++;
				EXPECT_EQ(ENAMETOOLONG, c->err) {
					TH_LOG("t%u n%u [%.6f, %.6f] under nolongcreate: %s",
					       t, c->seq, nlc_ts(&c->start),
					       nlc_ts(&c->end),
					       strerror(c->err));
				}
			} else if (window == 0) {
				accepted_sure++;
				EXPECT_EQ(0, c->err) {
					TH_LOG("t%u n%u [%.6f, %.6f] under longcreate: %s",
					       t, c->seq, nlc_ts(&c->start),
					       nlc_ts(&c->end),
					       strerror(c->err));
				}
			}
		}
	}
	TH_LOG("long creates: %u accepted; %u in nolongcreate, %u in longcreate windows",
	       long_ok, refused_sure, accepted_sure);
	/* the test did real work */
	EXPECT_LE(4U, nr_rm);
	EXPECT_LT(0U, refused_sure);
	EXPECT_LT(0U, accepted_sure);

	/* the last remount was nolongcreate or longcreate: so is the mount */
	nlc_expect_state(_metadata, self, rm[nr_rm - 1].nolong);
	nlc_umount(_metadata, self);

	/* LFN slots exactly for the long names whose create succeeded */
	{
		struct fat_raw fr;
		int err;

		nlc_raw_open(_metadata, self, &fr);
		err = fat_raw_walk(&fr, nlc_found_cb, found);
		fat_raw_close(&fr);
		ASSERT_EQ(0, err);
	}
	EXPECT_EQ(0U, found->bad) {
		TH_LOG("unexpected long name \"%s\"", found->bad_name);
	}
	EXPECT_EQ(long_ok, found->longs);
	EXPECT_EQ(short_ok, found->shorts);
	EXPECT_EQ(found->lfn_named, found->lfn);
	nlc_fsck(_metadata, self);
	for (t = 0; t < NLC_THREADS; t++)
		free(load[t].ev);
	free(rm);
	free(found);
}

TEST_HARNESS_MAIN
