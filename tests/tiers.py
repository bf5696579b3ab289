"""Test tiers: which tests need Spark, a real JVM, a broker or a browser, and the fast tier.

``make test`` runs every test. ``make test-fast`` runs :data:`FAST_EXPRESSION` with
``TRACKERLAB_FAST=1``: every test but those marked ``spark``, ``jvm``, ``broker``, ``browser``
or ``slow``. A test gets its marker from :func:`tier_markers`, by the fixtures it uses, its
folder or its file (the tables below), or by an explicit ``pytest.mark``.

The fast tier guards itself: with ``TRACKERLAB_FAST=1`` a test process that starts ``java``,
``spark-submit``, ``mvn``, ``go``, ``ip`` or a browser fails with :class:`TierViolation`
naming the test's missing marker, so a test cannot slip into the fast tier by accident.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

#: The markers that keep a test out of the fast tier, with what each needs.
HEAVY = {
    "spark": "needs a local Spark session (Java 17/21)",
    "jvm": "starts a real JVM (the probe, Pulsar's classes, Maven, JMH)",
    "broker": "starts a Pulsar broker or its clients on loopback",
    "browser": "drives headless Chromium",
    "slow": "takes more than a few seconds",
}
#: Fixtures that imply a marker.
FIXTURES = {"spark": "spark", "probe": "jvm", "uncompressed_probe": "jvm"}
#: Folders (relative to the repository) whose tests all carry a marker.
FOLDERS = {"tests/spark": "spark", "tests/jvmcheck": "jvm", "tests/broker": "broker"}
#: Files (relative to the repository) whose tests all carry a marker.
FILES = {
    "tests/planner/test_verify.py": "jvm",
    "tests/reporting/test_runner.py": "slow",
    "tests/reporting/test_kernel.py": "slow",
    "tests/reporting/test_browser.py": "browser",
    "tests/reporting/test_browser_check.py": "browser",
    "tests/models/pending_acks/test_jvm.py": "jvm",
}
#: Tests (node ids, or their prefix up to a parameter) that carry a marker. ``jvm`` and
#: ``spark`` ones were found by the guard below; ``slow`` ones took 4 s or more of one
#: worker's time in a fast-tier run on 2 cores (``pytest --durations=60``, 2026-11-28; a second group of 3.5 s or more on 2026-11-28 at 1,605 tests).
NODES = {
    "tests/core/test_java_runtime.py::test_this_machine_has_java_17_or_newer": "jvm",
    "tests/experiments/test_real_broker_receiver_queue.py::test_written_runs_read_back_and_a_damaged_file_is_named": "jvm",
    "tests/experiments/test_real_broker_stored.py::test_reads_what_the_delayed_experiment_writes": "jvm",
    "tests/planner/test_fleet.py::test_spark_gives_the_same_fleet": "spark",
    "tests/test_skip_rule.py::test_a_compile_error_in_the_probe_sources_fails_not_skips": "jvm",
    "tests/test_skip_rule.py::test_no_javac_skips": "jvm",
    "tests/experiments/test_design_lab_realistic.py::test_sorted_chunks_is_never_refused_and_sized_in_every_cell": "slow",
    "tests/models/proposals/test_sorted_chunks.py::test_a_splice_never_shrinks": "slow",
    "tests/experiments/test_pending_acks_experiments.py::test_every_seed_002_number_is_reproduced_within_three_percent": "slow",
    "tests/faults/test_damaged_sweeps.py::test_unreadable_manifest_and_points_are_one_line": "slow",
    "tests/faults/test_hostile.py::test_sweep_out_gets_the_refusals_of_report_out": "slow",
    "tests/planner/test_compare.py::test_each_column_is_the_release_s_own_plan": "slow",
    "tests/commands/test_cli_simulate.py::test_bench_runs_a_short_case_beside_the_stored_legacy_ratio": "slow",
    "tests/commands/test_cli.py::test_notebooks_lists_parameters": "slow",
    "tests/commands/test_cli.py::test_wrong_type_in_fixture_profile": "slow",
    "tests/planner/test_plan.py::test_terminal_table_lists_assumptions_and_units": "slow",
    "tests/commands/test_cli_versions.py::test_simulate_delayed_names_the_version_and_runs_its_designs": "slow",
    "tests/commands/test_cli_versions.py::test_4_0_5_and_4_1_differ_by_the_views_and_one_atomic_long": "slow",
    "tests/commands/test_cli_simulate_delayed.py::test_simulate_delayed_profile": "slow",
    "tests/planner/test_plan_properties.py::test_fast_is_within_its_bound_of_exact": "slow",
    "tests/planner/test_plan_properties.py::test_a_plan_answers_or_refuses_in_one_line": "slow",
    "tests/planner/test_fleet.py::test_a_long_tail_fleet_is_interpolated_within_its_stated_deviation": "slow",
    "tests/planner/test_fleet.py::test_one_group_spelled_two_ways": "slow",
    "tests/planner/test_fleet.py::test_the_cli": "slow",
    "tests/planner/test_fleet.py::test_bad_fleet_options_are_one_line": "slow",
    "tests/planner/test_pip195_row.py::test_the_plan_shows_it_with_memory_apart_and_persisted_bytes": "slow",
    "tests/planner/test_plan.py::test_malformed_workload_files": "slow",
    "tests/planner/test_plan.py::test_workload_file_and_flags_share_one_vocabulary": "slow",
    "tests/planner/test_plan.py::test_a_release_without_nack_precision_refuses_to_tune_it": "slow",
    "tests/planner/test_form.py::test_a_budget_adds_the_recommendation": "slow",
    "tests/planner/test_form.py::test_the_table_and_figure_are_the_planners": "slow",
    "tests/planner/test_receiver_queue_row.py::test_plan_row_by_hand": "slow",
    "tests/planner/test_mechanisms.py::test_the_fast_answer_states_a_bound_it_keeps": "slow",
    "tests/models/time_buckets/test_big_ledgers.py::test_a_64m_entry_ledger_is_sized_not_refused": "slow",
    "tests/models/time_buckets/test_big_ledgers.py::test_the_readme_workload_at_60k_per_s_plans": "slow",
    "tests/models/time_buckets/test_shapes.py::test_random_delays_break_the_seeds_assumption": "slow",
    "tests/models/proposals/test_sorted_chunks.py::test_bulk_sorted_build_equals_the_per_message_model": "slow",
    "tests/test_readme_answer.py::test_the_readme_quotes_what_plan_prints": "slow",
    "tests/test_readme_answer.py::test_the_readme_nack_figure_is_the_plan_s": "slow",
    "tests/commands/test_cli.py::test_bad_input_is_one_line_exit_2": "slow",
    "tests/commands/test_cli.py::test_unwritable_out_folder": "slow",
    "tests/experiments/test_design_lab_realistic.py::test_realistic_tables": "slow",
    "tests/experiments/test_massive_delayed.py::test_aggregated_bytes_agree_with_per_message_runs": "slow",
    "tests/experiments/test_massive_delayed.py::test_more_delay_profiles_agree": "slow",
    "tests/reporting/test_parameters.py::test_papermill_help_shows_types_and_no_unknown_type": "slow",
    "tests/faults/test_hostile.py::test_a_hostile_notebook_or_profile_file_is_one_line": "slow",
    "tests/faults/test_hostile_inputs.py::test_ctrl_c_during_a_simulation_exits_130": "slow",
    "tests/catalog/test_catalog.py::test_bad_size_options": "slow",
    "tests/test_skip_rule.py::test_every_skip_says_why_and_none_is_unconditional_or_for_a_python_package": "slow",
    "tests/test_tiers.py::test_the_guard_refuses_java_in_a_fast_process": "slow",
}
#: Executables a fast-tier test must not start (basenames).
GUARDED = frozenset(
    {"java", "javac", "spark-submit", "spark-class", "mvn", "go", "ip", "chromium", "node"}
)
FAST_ENV = "TRACKERLAB_FAST"
#: The ``-m`` expression of the fast tier.
FAST_EXPRESSION = "not (" + " or ".join(HEAVY) + ")"


class TierViolation(RuntimeError):
    """A test in the fast tier started something only the heavy tiers may start."""


def tier_markers(nodeid: str, fixtures: Iterable[str]) -> set[str]:
    """Markers a test gets from its repository-relative node id (``tests/x.py::test_y[a]``)
    and its ``fixtures``. O(tables)."""
    out = {FIXTURES[f] for f in fixtures if f in FIXTURES}
    path, _, name = nodeid.partition("::")
    bare = f"{path}::{name.split('[')[0]}"
    out |= {m for node, m in NODES.items() if node in (nodeid, bare)}
    p = PurePosixPath(path)
    out |= {m for folder, m in FOLDERS.items() if p.is_relative_to(folder)}
    if path in FILES:
        out.add(FILES[path])
    return out


def executable(args: object) -> str:
    """The basename of the program a ``subprocess.Popen`` call would start."""
    if isinstance(args, (str, bytes, os.PathLike)):
        words = os.fsdecode(args).split()
        first = words[0] if words else ""
    else:
        seq = list(args)  # type: ignore[call-overload]  # any iterable of path-likes
        first = os.fsdecode(seq[0]) if seq else ""
    return PurePosixPath(first).name


def install_guard(test_name: Callable[[], str]) -> None:
    """Make ``subprocess.Popen`` refuse the :data:`GUARDED` programs in this process."""
    original = subprocess.Popen.__init__
    if getattr(original, "_trackerlab_guard", False):
        return

    def guarded(self, args, *a, **kw):  # Popen.__init__ signature
        program = executable(args)
        if program in GUARDED:
            raise TierViolation(
                f"{test_name()} started {program!r} in the fast tier; mark it "
                f"{' or '.join(sorted(HEAVY))} (tests/tiers.py)"
            )
        original(self, args, *a, **kw)

    guarded._trackerlab_guard = True  # type: ignore[attr-defined]  # a flag on the function
    subprocess.Popen.__init__ = guarded  # type: ignore[method-assign]  # the guard itself
