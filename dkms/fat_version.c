// SPDX-License-Identifier: GPL-2.0
/* The package's version in modinfo; it also gives the module a srcversion. */
#include <linux/module.h>

MODULE_VERSION(VFAT_NOLONGCREATE_VERSION);
/* the linux-source its fs/fat came from: the kernel hook builds again when it is not the headers' */
MODULE_INFO(nlc_source, VFAT_NOLONGCREATE_SOURCE);
