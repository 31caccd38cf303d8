/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/export.h>: nothing is exported. */
#ifndef _RPCRDMA_CM_SHIM_LINUX_EXPORT_H
#define _RPCRDMA_CM_SHIM_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

#endif
