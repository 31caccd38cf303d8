/* SPDX-License-Identifier: GPL-2.0 */
/*
 * XDR for the test tools (rpcrdma-call, rpcrdma-serve): big-endian
 * 4-octet units, with the bounds always checked. A write past the end
 * sets overflow and writes nothing; a read past it sets ended and reads
 * zeros.
 */
#ifndef _RPCRDMA_CM_XDR_UTIL_H
#define _RPCRDMA_CM_XDR_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

struct xdr_out {
	u8	*p, *end;
	bool	overflow;
};

static inline u8 *xdr_reserve(struct xdr_out *x, size_t len)
{
	u8 *p = x->p;

	if (x->overflow || (size_t)(x->end - x->p) < len) {
		x->overflow = true;
		return NULL;
	}
	x->p += len;
	return p;
}

static inline void put32(struct xdr_out *x, u32 v)
{
	u8 *p = xdr_reserve(x, 4);

	if (!p)
		return;
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void put_opaque(struct xdr_out *x, const void *data, u32 len)
{
	size_t padded = ((size_t)len + 3) & ~(size_t)3;
	u8 *p;

	put32(x, len);
	p = xdr_reserve(x, padded);
	if (!p)
		return;
	memcpy(p, data, len);
	memset(p + len, 0, padded - len);
}

struct xdr_in {
	const u8	*p;
	size_t		left;
	bool		ended;	/* something ran past the end */
};

static inline u32 get32(struct xdr_in *x)
{
	u32 v;

	if (x->left < 4) {
		x->ended = true;
		x->left = 0;
		return 0;
	}
	v = (u32)x->p[0] << 24 | (u32)x->p[1] << 16 | (u32)x->p[2] << 8 |
	    x->p[3];
	x->p += 4;
	x->left -= 4;
	return v;
}

static inline void skip(struct xdr_in *x, unsigned long long len)
{
	if (x->left < len) {
		x->ended = true;
		x->left = 0;
		return;
	}
	x->p += len;
	x->left -= len;
}

/* Skip an opaque<@max>; false if its length is out of bounds or it ends early */
static inline bool skip_opaque(struct xdr_in *x, u32 max)
{
	u32 len = get32(x);

	if (len > max)
		return false;
	skip(x, ((unsigned long long)len + 3) & ~3ULL);
	return !x->ended;
}

#endif /* _RPCRDMA_CM_XDR_UTIL_H */
