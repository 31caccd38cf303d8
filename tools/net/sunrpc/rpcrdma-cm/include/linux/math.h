/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for the part of <linux/math.h> the codec uses. */
#ifndef _RPCRDMA_CM_SHIM_LINUX_MATH_H
#define _RPCRDMA_CM_SHIM_LINUX_MATH_H

/* @y must be a power of two, as in the kernel */
#define round_down(x, y) ((x) & ~((__typeof__(x))((y) - 1)))

#endif
