/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <kunit/visibility.h>: KUnit is kernel-only. */
#ifndef _RPCRDMA_CM_SHIM_KUNIT_VISIBILITY_H
#define _RPCRDMA_CM_SHIM_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(sym)

#endif
