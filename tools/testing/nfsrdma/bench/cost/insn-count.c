// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count.so: a qemu TCG plugin that counts the guest instructions
 * executed, by 4 KiB page of the guest's modules' area, and
 * writes the counts since the previous mark each time the guest marks.
 *
 * A guest marks by running bench/cost/mark (mark.c): its "mov
 * $0x5ec0a7ed, %ebx" followed by "xchg %bx, %bx" in user space. Each
 * mark appends to the output file
 *
 *	mark N
 *	ADDR SELF UNDER	(one line per page of the modules' area run since
 *			mark N-1)
 *	core SELF UNDER	(the kernel's own text)
 *	user SELF UNDER	(everything below the kernel's half)
 *	end N TOTAL
 *
 * and "value V" for each reset value (below) as it arrives.
 *
 * SELF counts the instructions of the page itself; UNDER those of the
 * kernel's own text (core: not a module) run while that page's code was
 * the last module code to run: the memcpy() or kmalloc() a module
 * calls, the network stack under rdma_rxe. Core code run after user
 * code, or after a reset, is core's UNDER. The guest tells the plugin
 * where the resets are: "mark START END..." hands it ranges of kernel
 * text (interrupt and system call entry, the context switch, softirq
 * processing) at whose blocks the kernel's code stops counting under
 * the module that ran last. The guest's /proc/modules tells the host
 * which module each page belongs to.
 *
 * The counts are exact: every translation block adds its number of
 * instructions when it starts, so the figures depend on what the guest
 * executed, not on how fast the host ran it. A block cut short by an
 * exception or interrupt still counts whole, and one that qemu runs
 * again to finish an I/O access (icount) counts twice: a few
 * instructions per interrupt or device access. Interrupt entry is a
 * reset: an interrupt's code counts as the kernel's.
 *
 * Usage: qemu-system-x86_64 -plugin PATH/insn-count.so,out=FILE[,shift=N] ...
 * where the modules' area is counted by 1 << N octets rather than by
 * page (N from 4 to 12: 4 tells the functions of a module apart).
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
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
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
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* The kernel's half of the x86-64 address space, and its modules' area */
#define KERNEL_BASE 0xffff800000000000ull
#define MODULES_BASE 0xffffffffc0000000ull
/* Pages the modules may execute; block descriptors (page and length) */
#define NSLOTS (1u << 18)
#define NBLOCKS (1u << 20)

struct slot {
	uint64_t page;		/* 0: free; else the page's address | 1 */
	uint64_t self, under;
	uint64_t last_self, last_under;	/* at the previous mark */
};

/* What a translation block adds, and where */
struct block {
	struct slot *slot;	/* NULL: the kernel's own text */
	uint64_t vaddr;		/* the kernel's own text only */
	uint32_t n;
	uint32_t gen;		/* of the resets that @reset was found for */
	bool used;
	bool reset;		/* the block begins a reset range */
};

/*
 * The reset ranges, [start, end) pairs, as the guest handed them over;
 * a pair whose end is not above its start names one block, at start
 */
#define NRANGES 64
static uint64_t ranges[2 * NRANGES];
static unsigned int nvalues;
static uint32_t ranges_gen = 1;

static struct slot slots[NSLOTS];
static struct slot core_slot, user_slot;
static struct block blocks[NBLOCKS];
static unsigned int nslots, nblocks;
/* The module page, or user, whose code ran last */
static struct slot *current = &core_slot;
/* the modules' area by 1 << shift octets (shift=N: 12, a page, unless told) */
static unsigned int shift = 12;
static FILE *out;
static unsigned long marks;

static uint32_t hash(uint64_t v, uint32_t n)
{
	return (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> 32) % n;
}

static struct slot *slot_of(uint64_t vaddr)
{
	uint64_t page = (vaddr >> shift << shift) | 1;
	uint32_t i = hash(page >> shift, NSLOTS);

	if (vaddr < KERNEL_BASE)
		return &user_slot;
	if (vaddr < MODULES_BASE)
		return NULL;
	while (slots[i].page && slots[i].page != page)
		i = (i + 1) % NSLOTS;
	if (!slots[i].page) {
		if (++nslots > NSLOTS / 2) {
			fprintf(stderr, "insn-count: more than %u module pages\n", NSLOTS / 2);
			abort();
		}
		slots[i].page = page;
	}
	return &slots[i];
}

/*
 * One descriptor per block length and module page, or user space, or
 * block of the kernel's own text (whose address a reset may name)
 */
static struct block *block_of(uint64_t vaddr, uint32_t n)
{
	struct slot *slot = slot_of(vaddr);
	uint64_t at = slot ? 0 : vaddr;
	uint32_t i = hash((uint64_t)(uintptr_t)slot ^ at ^ ((uint64_t)n << 48), NBLOCKS);

	while (blocks[i].used &&
	       (blocks[i].slot != slot || blocks[i].vaddr != at || blocks[i].n != n))
		i = (i + 1) % NBLOCKS;
	if (!blocks[i].used) {
		if (++nblocks > NBLOCKS / 2) {
			fprintf(stderr, "insn-count: more than %u block kinds\n", NBLOCKS / 2);
			abort();
		}
		blocks[i].used = true;
		blocks[i].slot = slot;
		blocks[i].vaddr = at;
		blocks[i].n = n;
	}
	return &blocks[i];
}

static bool in_ranges(uint64_t vaddr)
{
	unsigned int i;

	for (i = 0; i + 1 < nvalues; i += 2)
		if (vaddr == ranges[i] || (vaddr > ranges[i] && vaddr < ranges[i + 1]))
			return true;
	return false;
}

static void block_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	(void)vcpu;
	if (!b->slot) {
		if (b->gen != ranges_gen) {
			b->gen = ranges_gen;
			b->reset = in_ranges(b->vaddr);
		}
		if (b->reset)
			current = &core_slot;
		current->under += b->n;
		return;
	}
	b->slot->self += b->n;
	/* the kernel's code that user space enters is core's own */
	current = b->slot == &user_slot ? &core_slot : b->slot;
}

static uint64_t put(const char *name, struct slot *s)
{
	uint64_t self = s->self - s->last_self, under = s->under - s->last_under;

	if (!self && !under)
		return 0;
	s->last_self = s->self;
	s->last_under = s->under;
	if (name)
		fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", name, self, under);
	else
		fprintf(out, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
			(uint64_t)(s->page & ~1ull), self, under);
	return self + under;
}

static void mark(unsigned int vcpu, void *udata)
{
	uint64_t total = 0;
	unsigned int i;

	(void)vcpu;
	(void)udata;
	fprintf(out, "mark %lu\n", ++marks);
	for (i = 0; i < NSLOTS; i++)
		if (slots[i].page)
			total += put(NULL, &slots[i]);
	total += put("core", &core_slot);
	total += put("user", &user_slot);
	fprintf(out, "end %lu %" PRIu64 "\n", marks, total);
	fflush(out);
}

/* A value for the resets: movabs $VALUE, %rax; then xchg %cx, %cx */
static void value(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	if (nvalues == 2 * NRANGES) {
		fprintf(stderr, "insn-count: more than %u reset ranges\n", NRANGES);
		abort();
	}
	ranges[nvalues++] = *(uint64_t *)udata;
	ranges_gen++;
	/* for the host to check against what the guest sent */
	fprintf(out, "value %" PRIx64 "\n", *(uint64_t *)udata);
}

static const unsigned char value_xchg[] = { 0x66, 0x87, 0xc9 };

/* mov $0x5ec0a7ed, %ebx; then xchg %bx, %bx */
static const unsigned char mark_mov[] = { 0xbb, 0xed, 0xa7, 0xc0, 0x5e };
static const unsigned char mark_xchg[] = { 0x66, 0x87, 0xdb };

static bool insn_is(const struct qemu_plugin_insn *insn, const unsigned char *b,
		    size_t n)
{
	return qemu_plugin_insn_size(insn) == n && !memcmp(qemu_plugin_insn_data(insn), b, n);
}

/*
 * The first instruction of a signal pair may end one translation block
 * and the second begin the next (-icount cuts blocks short when its
 * budget runs out): the last instruction of each user block, if it is
 * such a first half, is kept here for the block that starts where it
 * ends.
 */
static struct {
	uint64_t end;		/* where the next instruction starts */
	bool mark;		/* a mark's mov, else a value's movabs */
	uint64_t value;
} half;

/* Is @insn the first half of a pair? Sets @half from it if so. */
static bool first_half(const struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);
	size_t len = qemu_plugin_insn_size(insn);

	if (insn_is(insn, mark_mov, sizeof(mark_mov))) {
		half.mark = true;
	} else if (len == 10 && b[0] == 0x48 && b[1] == 0xb8) {
		half.mark = false;
		memcpy(&half.value, b + 2, sizeof(half.value));
	} else {
		return false;
	}
	half.end = qemu_plugin_insn_vaddr(insn) + len;
	return true;
}

static void second_half(struct qemu_plugin_insn *insn)
{
	uint64_t *v;

	if (half.mark && insn_is(insn, mark_xchg, sizeof(mark_xchg))) {
		qemu_plugin_register_vcpu_insn_exec_cb(insn, mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
	} else if (!half.mark && insn_is(insn, value_xchg, sizeof(value_xchg))) {
		v = malloc(sizeof(*v));
		if (!v)
			abort();
		*v = half.value;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, value, QEMU_PLUGIN_CB_NO_REGS, v);
	}
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	bool pending;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_exec, QEMU_PLUGIN_CB_NO_REGS,
					     block_of(vaddr, (uint32_t)n));
	if (vaddr >= KERNEL_BASE || !n)
		return;
	/* a pair cut in two by the end of the block before */
	pending = half.end == vaddr;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (pending)
			second_half(insn);
		pending = first_half(insn);
	}
	if (!pending)
		half.end = 0;
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
		else if (!strncmp(argv[i], "shift=", 6))
			shift = (unsigned int)atoi(argv[i] + 6);
	if (shift < 4 || shift > 12) {
		fprintf(stderr, "insn-count: shift=N: 4 to 12\n");
		return -1;
	}
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
