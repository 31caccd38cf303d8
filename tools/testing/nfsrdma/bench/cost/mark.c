// SPDX-License-Identifier: GPL-2.0
/*
 * mark [START END]...: signal insn-count.so, the qemu plugin that counts
 * the guest's instructions for the benchmark's cost mode.
 *
 * With no argument: a mark, "mov $0x5ec0a7ed, %ebx; xchg %bx, %bx",
 * at which the plugin writes its counts. With arguments (hexadecimal
 * kernel addresses, in pairs): ranges of kernel text at which the
 * plugin stops counting the kernel's code under the module that ran
 * last (interrupt entry, context switch). Each value is handed over as
 * "movabs $VALUE, %rax; xchg %cx, %cx", code written for the purpose
 * into a page of its own, since the plugin sees instructions and not
 * registers. Static, without libc: a mark costs an exec and a few
 * instructions.
 */
#define NR_MMAP 9
#define NR_EXIT 60

static long syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall" : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static int hex(const char *s, unsigned long *v)
{
	unsigned long x = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return -1;
	for (; *s; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 :
			*s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		x = x << 4 | (unsigned long)d;
	}
	*v = x;
	return 0;
}

__attribute__((used)) void mark_main(long *sp)
{
	long argc = sp[0], i;
	char **argv = (char **)(sp + 1);
	unsigned char *code, *p;
	unsigned long v = 0;
	int k;

	if (argc == 1) {
		__asm__ volatile("mov $0x5ec0a7ed, %%ebx\n\txchg %%bx, %%bx" ::: "rbx");
		syscall6(NR_EXIT, 0, 0, 0, 0, 0, 0);
	}
	if (argc % 2 == 0 || argc > 1 + 2 * 64)
		syscall6(NR_EXIT, 2, 0, 0, 0, 0, 0);
	/* PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS */
	code = (unsigned char *)syscall6(NR_MMAP, 0, 4096, 7, 0x22, -1, 0);
	if ((unsigned long)code > -4096UL)
		syscall6(NR_EXIT, 1, 0, 0, 0, 0, 0);
	p = code;
	for (i = 1; i < argc; i++) {
		if (hex(argv[i], &v))
			syscall6(NR_EXIT, 2, 0, 0, 0, 0, 0);
		*p++ = 0x48;
		*p++ = 0xb8;
		for (k = 0; k < 8; k++)
			*p++ = (unsigned char)(v >> (8 * k));
		*p++ = 0x66;
		*p++ = 0x87;
		*p++ = 0xc9;
	}
	*p++ = 0xc3;
	((void (*)(void))code)();
	syscall6(NR_EXIT, 0, 0, 0, 0, 0, 0);
}

__asm__(".globl _start\n"
	"_start:\n"
	"\tmov %rsp, %rdi\n"
	"\tand $-16, %rsp\n"
	"\tcall mark_main\n"
	"\thlt\n");
