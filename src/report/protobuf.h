/*
 * Protocol Buffers' wire format, written by hand into a buffer the caller sized (pftrace.c):
 * varints, fixed 64-bit values, length-delimited bytes, and nested messages whose length byte
 * is filled in when they end. Private to the report layer.
 */
#ifndef PPSIM_REPORT_PROTOBUF_H
#define PPSIM_REPORT_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/numfmt.h"

/* Each writes at p and returns the end: v as a varint (7 bits a byte, low first), */
static inline char *put_varint(char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (char)v;
	return p;
}

/* v as 8 bytes, low first (fixed64), */
static inline char *put_fixed64(char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*p++ = (char)(v >> (8 * i));
	return p;
}

/* x's IEEE bits as a fixed64, */
static inline char *put_double(char *p, double x)
{
	uint64_t v;

	memcpy(&v, &x, sizeof(v));
	return put_fixed64(p, v);
}

/* and the n bytes at s after their length. */
static inline char *put_bytes(char *p, const char *s, size_t n)
{
	p = put_varint(p, n);
	memcpy(p, s, n);
	return p + n;
}

/* A field's key (field number << 3 | wire type) as its varint's bytes, a string literal. */
#define PUT_KEY(p, k) PUT_LIT(p, k)

/* A nested message's start: a byte for its length, which end_nested fills in. */
static inline char *begin_nested(char *p)
{
	return p + 1;
}

/* Ends the nested message whose body started at body (after its length byte) and ends at p:
 * writes its length, moving the body on when that takes more than a byte; returns the end. */
static inline char *end_nested(char *body, char *p)
{
	size_t n = (size_t)(p - body), k = 1;
	char len[10];

	if (n < 0x80) {
		body[-1] = (char)n;
		return p;
	}
	k = (size_t)(put_varint(len, n) - len);
	memmove(body + k - 1, body, n);
	memcpy(body - 1, len, k);
	return p + k - 1;
}

#endif
