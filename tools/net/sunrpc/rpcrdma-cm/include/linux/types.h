/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the kernel's <linux/types.h>: the UAPI
 * header plus the kernel-internal type names the codec uses.
 */
#ifndef _RPCRDMA_CM_SHIM_LINUX_TYPES_H
#define _RPCRDMA_CM_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#endif
