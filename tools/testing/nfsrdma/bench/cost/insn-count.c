// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count.so: a qemu TCG plugin that counts the guest instructions
 * executed, by 4 KiB page of the guest's kernel address space, and
 * writes the counts since the previous mark each time the guest marks.
 *
 * A guest marks by running bench/cost/mark (mark.S): its "mov
 * $0x5ec0a7ed, %ebx" followed by "xchg %bx, %bx" in user space. Each
 * mark appends to the output file
 *
 *	mark N
 *	ADDR COUNT	(one line per kernel page executed since mark N-1)
 *	user COUNT	(everything below the kernel's half, all processes)
 *	end N TOTAL
 *
 * The counts are exact: every translation block adds its number of
 * instructions to its page's counter when it starts (an inline add, no
 * call out of the generated code), so the figures depend on what the
 * guest executed, not on how fast the host ran it. A block cut short
 * by an exception or interrupt still counts whole: a few instructions
 * per interrupt.
 *
 * Usage: qemu-system-x86_64 -plugin PATH/insn-count.so,out=FILE ...
 * (one vCPU: the counters are plain, not atomic). Written against the
 * plugin API of version 1 (qemu 7.2, Debian bookworm), declared here
 * since Debian ships no qemu-plugin.h.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* The kernel's half of the x86-64 (and arm64) address space */
#define KERNEL_BASE 0xffff800000000000ull
#define PAGE_SHIFT 12
/* Pages the kernel may execute: core text, modules, a few trampolines */
#define NSLOTS (1u << 18)

struct slot {
	uint64_t page;		/* 0: free; else the page's address | 1 */
	uint64_t count;
	uint64_t last;		/* count at the previous mark */
};

static struct slot slots[NSLOTS];
/* Index NSLOTS - 1 is never hashed to: user space's */
static struct slot *user = &slots[NSLOTS - 1];
static unsigned int nused;
static FILE *out;
static unsigned long marks;

static struct slot *slot_of(uint64_t vaddr)
{
	uint64_t page = (vaddr >> PAGE_SHIFT << PAGE_SHIFT) | 1;
	uint32_t i = (uint32_t)((page >> PAGE_SHIFT) * 0x9e3779b97f4a7c15ull >> 40) %
		     (NSLOTS - 1);

	if (vaddr < KERNEL_BASE)
		return user;
	while (slots[i].page && slots[i].page != page)
		i = (i + 1) % (NSLOTS - 1);
	if (!slots[i].page) {
		if (++nused > NSLOTS / 2) {
			fprintf(stderr, "insn-count: more than %u kernel pages\n", NSLOTS / 2);
			abort();
		}
		slots[i].page = page;
	}
	return &slots[i];
}

static void mark(unsigned int vcpu, void *udata)
{
	uint64_t total = 0, d;
	unsigned int i;

	(void)vcpu;
	(void)udata;
	fprintf(out, "mark %lu\n", ++marks);
	for (i = 0; i < NSLOTS; i++) {
		d = slots[i].count - slots[i].last;
		if (!d)
			continue;
		slots[i].last = slots[i].count;
		total += d;
		if (&slots[i] == user)
			fprintf(out, "user %" PRIu64 "\n", d);
		else
			fprintf(out, "%" PRIx64 " %" PRIu64 "\n", (uint64_t)(slots[i].page & ~1ull), d);
	}
	fprintf(out, "end %lu %" PRIu64 "\n", marks, total);
	fflush(out);
}

/* mov $0x5ec0a7ed, %ebx; then xchg %bx, %bx */
static const unsigned char mark_mov[] = { 0xbb, 0xed, 0xa7, 0xc0, 0x5e };
static const unsigned char mark_xchg[] = { 0x66, 0x87, 0xdb };

static bool insn_is(const struct qemu_plugin_insn *insn, const unsigned char *b,
		    size_t n)
{
	return qemu_plugin_insn_size(insn) == n && !memcmp(qemu_plugin_insn_data(insn), b, n);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &slot_of(vaddr)->count, n);
	if (vaddr >= KERNEL_BASE)
		return;
	for (i = 1; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (insn_is(insn, mark_xchg, sizeof(mark_xchg)) &&
		    insn_is(qemu_plugin_tb_get_insn(tb, i - 1), mark_mov, sizeof(mark_mov)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark, QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	fclose(out);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!path || !info->system_emulation) {
		fprintf(stderr, "insn-count: usage: -plugin insn-count.so,out=FILE (system emulation)\n");
		return -1;
	}
	if (info->system.smp_vcpus != 1) {
		fprintf(stderr, "insn-count: one vCPU only (the counters are not atomic)\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
