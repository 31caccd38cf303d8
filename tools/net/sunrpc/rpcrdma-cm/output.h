/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One output layer for rpcrdma-cm and rpcrdma-call, text and JSON alike,
 * in the manner of iproute2's print_*() with PRINT_ANY: a command fills
 * a record field by field, then out_print() writes it either as
 * "key: value" lines or as one JSON object on one line (--json). Keys
 * of a record are unique, nested ones included, so that a shell script
 * can pick any of them.
 */
#ifndef _RPCRDMA_CM_OUTPUT_H
#define _RPCRDMA_CM_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

#define OUT_FIELDS_MAX		48
#define OUT_VALUE_MAX		1040	/* 512 octets of (iWARP) Private Data in hex */

enum out_kind {
	OUT_STR,	/* a JSON string */
	OUT_NUM,	/* a JSON number */
	OUT_BOOL,	/* JSON true/false, text yes/no */
	OUT_NULL,	/* JSON null; the text shows the value given */
	OUT_HEX,	/* octets: a JSON string of hex digits; text folds
			 * trailing zeroes, which are CM padding more often
			 * than data */
	OUT_OPEN,	/* a nested object (text: its fields, flat) */
	OUT_CLOSE,
	OUT_TEXT,	/* text only: a line of its own (no key) or a field */
};

struct out_field {
	const char	*key;
	enum out_kind	kind;
	size_t		len;		/* OUT_HEX: octets */
	char		val[OUT_VALUE_MAX];
};

struct out_rec {
	int			n;
	struct out_field	f[OUT_FIELDS_MAX];
};

void out_begin(struct out_rec *r);
void out_str(struct out_rec *r, const char *key, const char *val);
void out_fmt(struct out_rec *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void out_num(struct out_rec *r, const char *key, unsigned long long val);
void out_int(struct out_rec *r, const char *key, long long val);
void out_bool(struct out_rec *r, const char *key, bool val);
void out_null(struct out_rec *r, const char *key, const char *text);
void out_hex(struct out_rec *r, const char *key, const u8 *buf, size_t len);
void out_open(struct out_rec *r, const char *key);
void out_close(struct out_rec *r);
void out_text(struct out_rec *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void out_print(const struct out_rec *r);

#endif
