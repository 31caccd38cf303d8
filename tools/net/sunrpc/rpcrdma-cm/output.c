// SPDX-License-Identifier: GPL-2.0
/*
 * rpcrdma-cm and rpcrdma-call: one output layer for text and JSON
 * (output.h). A record is filled first and written at once, so that a
 * command can give up half-way without leaving half an object behind.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpcrdma-cm.h"
#include "output.h"

/* Text: "key:" padded to this column, then the value */
#define OUT_TEXT_COLUMN		22

/*
 * A record has room for OUT_FIELDS_MAX fields, more than any command
 * fills. One that needs more is a bug of this program: it stops with
 * EXIT_LOCAL and a message rather than drop a field (an OUT_CLOSE
 * dropped would leave the JSON unbalanced). Nothing of the record has
 * been written then.
 */
static struct out_field *out_add(struct out_rec *r, const char *key,
				 enum out_kind kind)
{
	struct out_field *f;

	if (r->n >= OUT_FIELDS_MAX) {
		fprintf(stderr, "%s: internal error: an output record of more than %d fields (at \"%s\")\n",
			prog_name, OUT_FIELDS_MAX, key ? key : "end of object");
		exit(EXIT_LOCAL);
	}
	f = &r->f[r->n++];
	f->key = key;
	f->kind = kind;
	f->len = 0;
	f->val[0] = '\0';
	return f;
}

static void out_vset(struct out_rec *r, const char *key, enum out_kind kind,
		     const char *fmt, va_list ap)
{
	struct out_field *f = out_add(r, key, kind);

	vsnprintf(f->val, sizeof(f->val), fmt, ap);
}

static void out_set(struct out_rec *r, const char *key, enum out_kind kind,
		    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void out_set(struct out_rec *r, const char *key, enum out_kind kind,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vset(r, key, kind, fmt, ap);
	va_end(ap);
}

void out_begin(struct out_rec *r)
{
	r->n = 0;
}

void out_str(struct out_rec *r, const char *key, const char *val)
{
	out_set(r, key, OUT_STR, "%s", val);
}

void out_fmt(struct out_rec *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vset(r, key, OUT_STR, fmt, ap);
	va_end(ap);
}

void out_num(struct out_rec *r, const char *key, unsigned long long val)
{
	out_set(r, key, OUT_NUM, "%llu", val);
}

void out_int(struct out_rec *r, const char *key, long long val)
{
	out_set(r, key, OUT_NUM, "%lld", val);
}

void out_bool(struct out_rec *r, const char *key, bool val)
{
	out_set(r, key, OUT_BOOL, "%s", val ? "true" : "false");
}

void out_null(struct out_rec *r, const char *key, const char *text)
{
	out_set(r, key, OUT_NULL, "%s", text);
}

void out_hex(struct out_rec *r, const char *key, const u8 *buf, size_t len)
{
	struct out_field *f = out_add(r, key, OUT_HEX);
	size_t i;

	if (2 * len >= sizeof(f->val)) {
		fprintf(stderr, "%s: internal error: %zu octets for \"%s\", which holds %zu\n",
			prog_name, len, key, (sizeof(f->val) - 1) / 2);
		exit(EXIT_LOCAL);
	}
	for (i = 0; i < len; i++)
		snprintf(f->val + 2 * i, 3, "%02x", buf[i]);
	f->len = i;
}

void out_open(struct out_rec *r, const char *key)
{
	out_add(r, key, OUT_OPEN);
}

void out_close(struct out_rec *r)
{
	out_add(r, NULL, OUT_CLOSE);
}

void out_text(struct out_rec *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vset(r, key, OUT_TEXT, fmt, ap);
	va_end(ap);
}

/* A JSON string: text from the user or the system may hold anything */
static void json_string(const char *str)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void print_json(const struct out_rec *r)
{
	bool first = true;
	int i;

	putchar('{');
	for (i = 0; i < r->n; i++) {
		const struct out_field *f = &r->f[i];

		if (f->kind == OUT_TEXT)
			continue;
		if (f->kind == OUT_CLOSE) {
			putchar('}');
			first = false;
			continue;
		}
		printf("%s\"%s\": ", first ? "" : ", ", f->key);
		first = false;
		switch (f->kind) {
		case OUT_STR:
		case OUT_HEX:
			json_string(f->val);
			break;
		case OUT_OPEN:
			putchar('{');
			first = true;
			break;
		case OUT_NULL:
			fputs("null", stdout);
			break;
		default:
			fputs(f->val, stdout);
		}
	}
	puts("}");
}

/* Octets in hex, spaced, with trailing zero octets counted, not shown */
static void text_hex(const struct out_field *f)
{
	size_t i, last = 0;

	for (i = 0; i < f->len; i++)
		if (strncmp(f->val + 2 * i, "00", 2))
			last = i + 1;
	for (i = 0; i < last; i++)
		printf("%.2s%s", f->val + 2 * i, i + 1 < last ? " " : "");
	if (last < f->len)
		printf("%s(%zu zero octets)", last ? " " : "", f->len - last);
}

static void print_text(const struct out_rec *r)
{
	int i;

	for (i = 0; i < r->n; i++) {
		const struct out_field *f = &r->f[i];

		if (f->kind == OUT_OPEN || f->kind == OUT_CLOSE)
			continue;
		if (!f->key) {
			puts(f->val);
			continue;
		}
		printf("%s:%*s", f->key,
		       (int)(strlen(f->key) + 1 < OUT_TEXT_COLUMN ?
			     OUT_TEXT_COLUMN - strlen(f->key) - 1 : 1), "");
		if (f->kind == OUT_BOOL)
			fputs(strcmp(f->val, "true") ? "no" : "yes", stdout);
		else if (f->kind == OUT_HEX)
			text_hex(f);
		else
			fputs(f->val, stdout);
		putchar('\n');
	}
}

void out_print(const struct out_rec *r)
{
	if (json_output)
		print_json(r);
	else
		print_text(r);
	fflush(stdout);
}
