/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the parts of <linux/minmax.h> the codec uses. Arguments are evaluated once, and
 * both sides must have the same type, as the kernel versions insist.
 */
#ifndef _RPCRDMA_CM_SHIM_LINUX_MINMAX_H
#define _RPCRDMA_CM_SHIM_LINUX_MINMAX_H

#define __shim_same_type(a, b) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(a), \
						    __typeof__(b)), \
		       "min/max/clamp of different types")

#define min(a, b) ({					\
	__typeof__(a) _a = (a);				\
	__typeof__(b) _b = (b);				\
	__shim_same_type(_a, _b);			\
	_a < _b ? _a : _b; })

#define max(a, b) ({					\
	__typeof__(a) _a = (a);				\
	__typeof__(b) _b = (b);				\
	__shim_same_type(_a, _b);			\
	_a > _b ? _a : _b; })

#define clamp(val, lo, hi) min(max(val, lo), hi)

#endif
