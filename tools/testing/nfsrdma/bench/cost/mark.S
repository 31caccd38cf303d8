/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mark: tell insn-count.so (a qemu plugin on the host) to write its
 * counts. The two instructions below are the signal the plugin looks
 * for; then exit(0). Static, no libc: the mark costs the guest an exec
 * and these few instructions.
 */
	.globl _start
	.text
_start:
	mov	$0x5ec0a7ed, %ebx
	xchg	%bx, %bx
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
