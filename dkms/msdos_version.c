// SPDX-License-Identifier: GPL-2.0
/* The package's version in modinfo; it also gives the module a srcversion. */
#include <linux/module.h>

MODULE_VERSION(VFAT_NOLONGCREATE_VERSION);
