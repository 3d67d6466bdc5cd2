// SPDX-License-Identifier: MIT
/* Unit tests of diff/probeframes.c: which stacks hold perfgate's own frames, where they are folded,
 * and folding a run's repetitions (merged, still sorted). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../formats/folded.h"
#include "../../core/run.h"
#include "../../diff/probeframes.h"
#include "fixtures.h"

static void fold_is(const char *in, const char *want)
{
	char *got = pg_probe_fold(in);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_fold_stacks(void **state)
{
	size_t keep;

	(void)state;
	/* no kernel frames, or the benchmark's own: unchanged */
	fold_is("main;a;b", "main;a;b");
	fold_is("main;a;asm_exc_page_fault [k];exc_page_fault [k]",
		"main;a;asm_exc_page_fault [k];exc_page_fault [k]");
	assert_false(pg_probe_split("main;write;entry_SYSCALL_64_after_hwframe [k]", &keep));
	/* an entry probe (uprobe syscall of a nop5 site): under the traced function */
	fold_is("main;process_image;blur_row;entry_SYSCALL_64_after_hwframe [k];do_syscall_64 [k];"
		"__x64_sys_uprobe [k];handle_syscall_uprobe [k];handler_chain [k];"
		"uprobe_multi_link_handler [k];uprobe_prog_run [k];"
		"bpf_prog_752f32c3bc50384e_pg_entry [k];lookup_nulls_elem_raw [k]",
		"main;process_image;blur_row;" PG_PROBE_FRAME);
	/* a breakpoint (int3) site */
	fold_is("main;f;asm_exc_int3 [k];exc_int3 [k];do_int3_user [k];handle_swbp [k]",
		"main;f;" PG_PROBE_FRAME);
	fold_is("main;f;asm_exc_int3 [k];exc_int3 [k];do_int3_user [k]", "main;f;" PG_PROBE_FRAME);
	/* ... sampled on its way back to user space, before uprobes' work */
	fold_is("main;f;asm_exc_int3 [k];irqentry_exit_to_user_mode [k]", "main;f;" PG_PROBE_FRAME);
	/* a breakpoint the kernel hit in its own code is not a probe */
	fold_is("main;w;entry_SYSCALL_64_after_hwframe [k];text_poke_bp [k];asm_exc_int3 [k]",
		"main;w;entry_SYSCALL_64_after_hwframe [k];text_poke_bp [k];asm_exc_int3 [k]");
	/* a return probe: under the function returned into */
	fold_is("main;process_image;entry_SYSCALL_64_after_hwframe [k];do_syscall_64 [k];"
		"__x64_sys_uretprobe [k];uprobe_handle_trampoline [k]",
		"main;process_image;" PG_PROBE_FRAME);
	/* the trampoline or the single-step slot, which names no function: dropped with them */
	fold_is("ld-linux-x86-64.so.2+0xefba64900d;entry_SYSCALL_64_after_hwframe [k];"
		"do_syscall_64 [k];__x64_sys_uretprobe [k]", PG_PROBE_FRAME);
	fold_is("main;f;[uprobes];asm_exc_debug [k];exc_debug_user [k];"
		"irqentry_exit_to_user_mode [k]", "main;f;" PG_PROBE_FRAME);
	/* a tracepoint's program: from the glue on, the kernel's own frames below stay */
	fold_is("main;exit;entry_SYSCALL_64_after_hwframe [k];do_syscall_64 [k];do_exit [k];"
		"__traceiter_sched_process_exit [k];bpf_trace_run1 [k];"
		"bpf_prog_0123456789abcdef_pg_exit [k];htab_map_delete_elem [k]",
		"main;exit;entry_SYSCALL_64_after_hwframe [k];do_syscall_64 [k];do_exit [k];"
		PG_PROBE_FRAME);
	/* uprobes' bookkeeping in an exec of the benchmark: the exec stays */
	fold_is("[pre-exec];entry_SYSCALL_64_after_hwframe [k];do_syscall_64 [k];"
		"__x64_sys_execve [k];load_elf_binary [k];__mmap_region [k];uprobe_mmap [k];"
		"install_breakpoint [k];uprobe_write_opcode [k];arch_uprobe_analyze_insn [k]",
		"[pre-exec];entry_SYSCALL_64_after_hwframe [k];do_syscall_64 [k];"
		"__x64_sys_execve [k];load_elf_binary [k];__mmap_region [k];" PG_PROBE_FRAME);
	/* a probe firing that optimizes its site (arch_uprobe_optimize) */
	fold_is("main;asm_exc_int3 [k];irqentry_exit_to_user_mode [k];uprobe_notify_resume [k];"
		"arch_uprobe_optimize [k];int3_update [k];uprobe_write [k]",
		"main;" PG_PROBE_FRAME);
	/* someone else's BPF program is not ours */
	fold_is("main;bpf_prog_0123456789abcdef_other [k]",
		"main;bpf_prog_0123456789abcdef_other [k]");
	assert_true(pg_probe_split("a;handle_swbp [k]", &keep));
	assert_int_equal(keep, 1);
}

static void test_fold_run(void **state)
{
	struct pg_run run;
	const struct pg_rep *rep;

	(void)state;
	pg_run_init(&run);
	pg_fx_stacks(&run, "m;f;handle_swbp [k] 2\n"
		      "m;f;do_int3_user [k] 3\n"
		      "m;f 10\n"
		      "m;f;[perfgate probes] 1\n"	/* folded already: merged too */
		      "m;g;x [k] 4\n");
	pg_fx_stacks(&run, "m;f 7\n");
	assert_int_equal(pg_run_fold_probes(&run), 0);
	rep = &run.reps[0];
	assert_int_equal(rep->nstacks, 3);
	assert_string_equal(rep->stacks[0].folded, "m;f");
	assert_int_equal(rep->stacks[0].count, 10);
	assert_string_equal(rep->stacks[1].folded, "m;f;" PG_PROBE_FRAME);
	assert_int_equal(rep->stacks[1].count, 6);
	assert_string_equal(rep->stacks[2].folded, "m;g;x [k]");
	assert_int_equal(run.reps[1].nstacks, 1);
	for (size_t i = 1; i < rep->nstacks; i++)	/* sorted and unique */
		assert_true(strcmp(rep->stacks[i - 1].folded, rep->stacks[i].folded) < 0);
	pg_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_stacks),
		cmocka_unit_test(test_fold_run),
	};

	return cmocka_run_group_tests_name("probes", tests, NULL, NULL);
}
