"""The ``netzbench`` command line: the commands the DVC stages call.

Every command validates ``params.yaml`` and its arguments first and stops
with a message naming the problem and the valid choices (exit code 2)
before anything is trained.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click

from .cli_common import (Commands, UserError, check_device, check_finite, check_meta, check_model_name,
                         check_rank_names, check_task_name, checked_params, epoch_budgets)
from .cli_review import compare_cmd, estimate_cmd, export_cmd, exps_cmd, stale_cmd, verify_cmd
from .console import console
from .errors import ParamsError, RecordError

log = logging.getLogger(__name__)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="netzbench")
def main() -> None:
    """netzbench: statistically honest GNN benchmarking (GraphNetz protocol) as a DVC pipeline."""
    click.get_current_context().with_resource(console())  # every command's messages, on stderr, bare
    _quick_exit()


def _quick_exit() -> None:
    """At exit, freeze the objects left (``gc.freeze``) before the interpreter tears its modules down: its
    collector would otherwise walk every object torch, PyG, scipy and matplotlib made, about 0.5-1.5 s of a
    stage that has finished its work. Every ``atexit`` handler still runs (``weakref.finalize``, pools,
    temporary folders) and reference counting still frees what it can; the memory is the system's anyway."""
    import atexit
    import gc

    global _QUICK_EXIT
    if not _QUICK_EXIT:
        atexit.register(gc.freeze)
        _QUICK_EXIT = True


_QUICK_EXIT = False


for _command in (estimate_cmd, verify_cmd, compare_cmd, exps_cmd, stale_cmd, export_cmd):
    main.add_command(_command)


@main.command()
@click.argument("tasks", nargs=-1)
@click.option("--all", "all_tasks", is_flag=True, help="Every task of params.yaml (the pipeline's fetch stage).")
@click.option("--params", "params_path", default="params.yaml", show_default=True, help="Parameters file.")
@click.option("--data-root", default="data", show_default=True, help="Where processed data is written.")
def fetch(tasks: tuple[str, ...], all_tasks: bool, params_path: str, data_root: str) -> None:
    """Bring each TASK's dataset into data/TASK/ (mirror first, checksummed, processed deterministically).

    With --all, every task of params.yaml, in one process (one DVC stage: a re-check of an unchanged
    pipeline costs seconds, not a stage start per task). With --all and a candidate `module:Class` never
    imported before, a detached process imports it and starts the warm worker server meanwhile, for
    the train stage that follows (netzbench.run.prewarm).
    """
    from .catalog.checks import DatasetError
    from .catalog.data import fetch_summary, fetch_task
    from .catalog.fetch import ChecksumMismatch, DatasetUnavailable, UnsafeArchive

    settings = checked_params(params_path, import_models=False)
    if all_tasks == bool(tasks):
        raise UserError("name the tasks to fetch, or give --all for every task of params.yaml")
    for task in tasks or settings.tasks:
        check_task_name(task)
    if all_tasks:  # the pipeline's stage: a new candidate's import and the warm server start meanwhile
        from .run.prewarm import spawn

        spawn(settings)
    for task in tasks or settings.tasks:
        try:
            meta = fetch_task(task, settings, data_root)
        except (DatasetUnavailable, ChecksumMismatch, UnsafeArchive, FileNotFoundError, DatasetError) as exc:
            raise UserError(str(exc)) from None
        except OSError as exc:  # a --data-root that is a file, unwritable, a full disk: named, one line
            raise UserError(f"fetch {task}: {exc.filename or data_root}: {exc.strerror or exc}") from None
        log.info(f"{task}: {fetch_summary(meta)}")


@main.command()
@click.argument("task")
@click.option("--data-root", default="data", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="The card as JSON.")
def card(task: str, data_root: str, as_json: bool) -> None:
    """Print the dataset card of TASK: sizes, labels and homophily, split audits, warnings."""
    from .catalog.card import card_text, read_card
    from .paths import child

    check_meta(data_root, child(data_root, task).name)
    try:
        found = read_card(child(data_root, task))
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    click.echo(json.dumps(found, indent=2) if as_json else card_text(found), err=True)


@main.command()
@click.argument("task", required=False)
@click.argument("model", required=False)
@click.option("--all", "all_tasks", is_flag=True,
              help="Every task of params.yaml, their seeds in one pool (the pipeline's train stage).")
@click.option("--params", "params_path", default="params.yaml", show_default=True, help="Parameters file.")
@click.option("--out", default=None, help="Run record path of a single cell [default: metrics/runs/TASK/MODEL.json].")
@click.option("--data-root", default="data", show_default=True)
def train(task: str | None, model: str | None, all_tasks: bool, params_path: str, out: str | None,
          data_root: str) -> None:
    """Train every seed of the pipeline's cells and write their run records.

    With --all (the pipeline's train stage): for every task of params.yaml, every roster model and the
    candidate (params `model` + `model_args`), the uncached seeds of all of them in one pool; records in
    metrics/runs/TASK/ and metrics/candidate/TASK.json (`no_candidate` when `model` is null, `in_roster`
    when it names a roster model without `model_args`: the report then uses the roster cell), and the
    records of a task or roster model no longer in params.yaml removed from there. With TASK: that
    task's cells only. With TASK MODEL: that one cell.
    """
    from .paths import child
    from .run.execute import roster_ahead, train_cell, train_task, train_tasks

    ahead: dict = {}

    def before_import(settings) -> None:
        _warm_while_importing(settings)
        if all_tasks and task is None:  # the roster needs no candidate: planned (and its cached records
            # written) while a new candidate's traits are learnt, not after
            ahead["roster"] = roster_ahead(settings.tasks, settings, data_root=data_root)

    settings = checked_params(params_path, before_import=before_import)
    if all_tasks == (task is not None):
        raise UserError("name the task to train, or give --all for every task of params.yaml"
                        if not all_tasks else "give TASK or --all, not both")
    if task is not None:
        check_task_name(task)
    for name in [task] if task is not None else settings.tasks:
        check_meta(data_root, name)
    check_device(settings)
    if model is None:
        if out is not None:
            raise UserError("--out names one cell's record: give TASK and MODEL")
        if settings.candidate.model is not None:
            check_model_name(settings.candidate.model, settings.candidate.arguments())
        try:
            if all_tasks:
                records = train_tasks(settings.tasks, settings, "metrics/runs", "metrics/candidate",
                                      data_root=data_root, prune=True, roster=ahead.get("roster"))
            else:
                records = {task: train_task(task, settings, child("metrics/runs", task),
                                            child("metrics/candidate", f"{task}.json"), data_root=data_root)}
        except (RecordError, FileNotFoundError) as exc:  # a record not written (a full disk); a task not fetched
            raise UserError(str(exc)) from None
        for name, by_model in records.items():
            summary = ", ".join(f"{m} {r['status']}" for m, r in by_model.items())
            log.info(f"{name}: {summary} -> metrics/runs/{name}/, metrics/candidate/{name}.json")
        return
    check_model_name(model)
    out = out or child(child("metrics/runs", task), f"{model}.json")  # checked names; never outside metrics/runs
    try:
        record = train_cell(task, model, settings, out, data_root=data_root)
    except RecordError as exc:  # the record could not be written (a full disk): names it
        raise UserError(str(exc)) from None
    log.info(f"{task}/{model}: {record['status']} -> {out}")


def _warm_while_importing(settings) -> bool:
    """A candidate ``module:Class`` whose families are not remembered is imported next (torch and PyG:
    seconds) and will most likely train: the warm server starts meanwhile, not after planning. Returns
    whether the candidate is such a one."""
    from .model_traits import remembered

    model = settings.candidate.model
    if model and ":" in model and not remembered(model):
        from .run.warm import start_in_background

        start_in_background(settings.execution)
        return True
    return False


@main.command()
@click.argument("task")
@click.option("--params", "params_path", default="params.yaml", show_default=True, help="Parameters file.")
@click.option("--data-root", default="data", show_default=True)
def candidate(task: str, params_path: str, data_root: str) -> None:
    """Train the candidate model (params `model` + `model_args`) on TASK.

    Writes metrics/candidate/TASK.json: status `no_candidate` when `model` is
    null, `in_roster` when it names a roster model without `model_args`
    (the report then uses the roster cells), otherwise a full run record.
    """
    from .paths import child
    from .records import write_record
    from .run.execute import train_cell

    settings = checked_params(params_path)
    check_task_name(task)
    out = child("metrics/candidate", f"{task}.json")
    model, model_args = settings.candidate.model, settings.candidate.arguments()
    placeholder = settings.candidate_placeholder(task)
    if placeholder is not None:
        write_record(out, placeholder)
        log.info(f"{task}: no candidate model configured (params `model` is null)" if model is None else
                 f"{task}: candidate {model} is in the roster; the report uses its roster cell")
        return
    check_model_name(model, model_args)
    check_device(settings)
    try:
        record = train_cell(task, model, settings, out, role="candidate", model_args=model_args, data_root=data_root)
    except RecordError as exc:  # the record could not be written (a full disk): names it
        raise UserError(str(exc)) from None
    log.info(f"{task}/candidate {record['model']}: {record['status']} -> {out}")


@main.command()
@click.option("--params", "params_path", default="params.yaml", show_default=True, help="Parameters file.")
@click.option("--data-root", default="data", show_default=True)
@click.option("--dry-run", is_flag=True, help="Print the cost model and the stale cells; train nothing.")
def sweep(params_path: str, data_root: str, dry_run: bool) -> None:
    """Train every stale cell's seeds at once (on Ray with exec.executor: ray), filling the seed cache.

    As the pipeline's train stage does, a sweep submits the uncached seeds (and
    search candidates) of every roster and candidate cell together; it writes no
    run record, fetches only what is not fetched yet, and --dry-run prints the
    cost first, so it can fill the cache (on a cluster, say) outside DVC.
    Results land in the per-seed cache as they finish (an interrupted sweep
    loses nothing); a following `dvc repro` then records every cell without
    retraining.
    """
    from .catalog.data import fetch_task
    from .run.execute import run_plans
    from .run.plan import plan_cell

    settings = checked_params(params_path)
    check_device(settings)  # every name in params was checked by checked_params
    cells = settings.cells()
    if any(role == "candidate" for _, _, role, _ in cells):
        check_model_name(settings.candidate.model, settings.candidate.arguments())
    for task in settings.tasks:
        if not (Path(data_root) / task / "meta.json").is_file():
            fetch_task(task, settings, data_root)
    plans = [plan_cell(t, m, settings, role=role, model_args=args, data_root=data_root, quiet=True)
             for t, m, role, args in cells]
    stale = [p for p in plans if p.jobs]
    n_cand = max(1, len(plans[0].grid)) if plans else 1
    runs = sum(len(p.jobs) for p in stale)
    log.info(f"sweep: {len(cells)} cells x {len(settings.seeds)} seeds x {n_cand} candidate(s) = "
             f"{len(cells) * len(settings.seeds) * n_cand} runs at most; {runs} not cached, in {len(stale)} cell(s); "
             f"executor: {settings.execution.executor}")
    for p in stale:
        log.info(f"  {p.label}: {len(p.jobs)} run(s)")
    if dry_run or not stale:
        return
    run_plans(stale, settings, desc="sweep")
    failed = sum(1 for p in stale for r in p.results.values() if r.get("status") != "ok")
    log.info(f"sweep done: {runs - failed} run(s) cached, {failed} failed; now `dvc repro` records the cells")


@main.command()
@click.option("--params", "params_path", default="params.yaml", show_default=True, help="Parameters file.")
@click.option("--data-root", default="data", show_default=True)
@click.option("--variant-seeds", type=click.IntRange(min=2), default=None,
              help="Train the single-switch variants on the first N seeds only (paper and strict: every seed).")
@click.option("--tasks", "only", multiple=True, help="Run the study for these tasks only, in this order (repeatable).")
@click.option("--afresh", is_flag=True, help="Ignore a study already there (default: continue it).")
def protocols(params_path: str, data_root: str, variant_seeds: int | None, only: tuple[str, ...],
              afresh: bool) -> None:
    """Run the protocol study: the strict protocol and the paper protocol with one switch at a time set strict.

    Trains (cached, like every cell) each variant for the tasks, roster and
    seeds of params.yaml and writes reports/protocol_study.json and the strict
    protocol's report in reports/strict/; `dvc repro` then adds section 12
    (paper vs strict) to REPORT.md. A study already there for the same code,
    seeds and roster is continued: only its missing variants run, and it is
    written after each, so a stopped study loses at most the variant it was on.
    """
    from .study import run_study

    settings = checked_params(params_path)
    check_device(settings)  # every name in params was checked by checked_params
    for task in only:
        if task not in settings.tasks:
            raise click.BadParameter(f"{task!r} is not one of params.yaml's tasks", param_hint="--tasks")
    run_study(settings, data_root=data_root, variant_seeds=variant_seeds, tasks=list(only) or None,
              afresh=afresh)


@main.command()
@click.option("--target-effect", type=click.FloatRange(min=0, min_open=True), default=None,
              help="The smallest difference worth detecting, in metric units (e.g. 0.01 accuracy) "
                   "[default: seed_plan.target_effect].")
@click.option("--looks", default=None,
              help="Seed counts at which comparisons are decided, increasing; the last is the cap "
                   "[default: seed_plan.looks, 3,5,10,20].")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=None,
              help="Overall error rate per comparison [default: seed_plan.alpha, else report.alpha].")
@click.option("--params", "params_path", default="params.yaml", show_default=True, help="Parameters file.")
@click.option("--data-root", default="data", show_default=True)
@click.option("--out", default="reports/seed_plan.json", show_default=True, help="Where the plan is written.")
def seeds(target_effect: float | None, looks: str | None, alpha: float | None, params_path: str, data_root: str,
          out: str) -> None:
    """The seed plan: add seeds in rounds only to the comparisons still undecided at the target effect (different,
    equivalent within it, or undecided at the cap), each look at Pocock's boundary so that the error
    rate stays at alpha; say how many seed runs that saved against giving every cell the cap. The
    options default to params.yaml's seed_plan block."""
    from .params import ParamsError, check_looks
    from .seed_plan import run_seed_plan

    counts = None
    if looks is not None:  # checked before anything is read
        try:
            counts = check_looks([int(v) for v in looks.split(",") if v.strip()], "--looks")
        except ParamsError as exc:  # a ValueError too: first
            raise UserError(str(exc)) from None
        except ValueError:
            raise UserError(f"--looks must be comma-separated seed counts, got {looks!r}") from None
    check_finite({"--target-effect": target_effect, "--alpha": alpha})
    settings = checked_params(params_path)
    check_device(settings)
    plan = settings.seed_plan
    counts = counts or list(plan.looks)
    target_effect = plan.target_effect if target_effect is None else target_effect
    if target_effect is None:
        raise UserError("give --target-effect or set seed_plan.target_effect in params.yaml")
    run_seed_plan(settings, target_effect=target_effect, looks=counts, alpha=plan.alpha if alpha is None else alpha,
                  data_root=data_root, out=out)


@main.command()
@click.argument("tasks", nargs=-1)
@click.option("--models", "only", multiple=True,
              help="Models to train on the controls (repeatable) [default: controls.models, else the roster].")
# params.CONTROL_KINDS, spelt out: importing params here would add it to every command's start (tested equal)
@click.option("--control", "kinds", multiple=True, type=click.Choice(["no_edges", "rewired", "random_graph"]),
              help="Controls to run (repeatable) [default: controls.kinds, all three].")
@click.option("--epochs", "budgets", multiple=True, metavar="TASK=N",
              help="Epoch budget of TASK and its controls (repeatable) [default: train.epochs, else the "
                   "catalogue's budget].")
@click.option("--params", "params_path", default="params.yaml", show_default=True, help="Parameters file.")
@click.option("--data-root", default="data", show_default=True)
def controls(tasks, only, kinds, budgets, params_path, data_root) -> None:
    """Does the graph matter? Train each model on TASKS (default: controls.tasks of params.yaml) and on
    their structure controls (no edges, a degree-preserving rewiring, a random graph with as many edges),
    and say per task, model and control whether structure helps, hurts, or has no detectable effect
    (reports/controls.json)."""
    from .catalog.controls import ControlError
    from .structure_controls import run_controls

    settings = checked_params(params_path)
    check_device(settings)
    block = settings.controls
    tasks = list(tasks) or list(block.tasks)
    if not tasks:
        raise UserError("give the TASKS to run the structure controls on, or set controls.tasks in params.yaml")
    for task in tasks:
        check_task_name(task)
    epochs = epoch_budgets(budgets, tasks)
    for model in only:
        check_model_name(model)
    try:
        models = list(only) or (list(block.models) if block.models is not None else None)
        run_controls(settings, tasks, models, tuple(kinds or block.kinds), data_root=data_root,
                     **({"epochs": epochs} if epochs else {}))
    except ControlError as exc:
        raise UserError(str(exc)) from None


@main.command()
@click.option("--dir", "target", default=".netzbench/quick", show_default=True,
              help="Throwaway workspace for the profile (created; reused next time).")
@click.option("--questions", is_flag=True, help="Also answer the three questions: structure controls, tuning "
                                                 "budgets (a search of two learning rates), seed rounds.")
def quick(target: str, questions: bool) -> None:
    """Run the quick profile: the whole pipeline on 4 offline tasks x 5 models x 3 seeds, in minutes.

    Copies the repository's code to --dir with the profile's params.yaml and runs `dvc repro` there;
    the repository's own params and published results are not touched. --questions: with a search of
    two learning rates, then structure controls and seed rounds (REPORT.md section 14).
    """
    from .quick import run_quick

    try:
        run_quick(target, questions=questions)
    except RuntimeError as exc:
        raise UserError(str(exc)) from None


@main.command()
@click.option("--stop", is_flag=True, help="Ask this checkout's servers to leave now instead of after exec.warm_s idle seconds.")
@click.option("--all", "everywhere", is_flag=True, help="With --stop: the servers of every checkout of this user.")
def warm(stop: bool, everywhere: bool) -> None:
    """List (or --stop) the warm worker servers that serve training stages their seed processes, each with
    the checkout it serves."""
    from .run.warm import listing, stop_servers

    if stop:
        log.info(f"asked {stop_servers(everywhere=everywhere)} warm server(s) of "
                 f"{'every checkout' if everywhere else 'this checkout'} to leave")
        return
    lines = listing()
    click.echo("\n".join(lines)) if lines else log.info("no warm server is running")


@main.command()
@click.option("--params", "params_path", default="params.yaml", show_default=True, help="Parameters file.")
def report(params_path: str) -> None:
    """Build the statistical report from the run records of the roster in params.yaml."""
    from .settings import Settings

    try:  # values only: the report reads run records, never the catalogue
        settings = check_rank_names(Settings.load(params_path), params_path)
    except ParamsError as exc:
        raise UserError(str(exc)) from None
    from .report.stage import run_report_stage

    unchanged = "nothing was published: the previous report outputs are unchanged"
    try:
        run_report_stage(settings)
    except RecordError as exc:  # a torn or foreign run record: names the file and the stage to re-run
        raise UserError(f"{exc}; {unchanged}") from None
    except OSError as exc:  # e.g. a full disk while writing (the outputs are renamed into place only at the end)
        from .records import CommitError

        where = f" {exc.filename}" if exc.filename else ""
        then = "run `netzbench report` again once that is fixed" if isinstance(exc, CommitError) else unchanged
        raise UserError(f"report: cannot write{where}: {exc.strerror or exc}; {then}") from None
    except Exception:
        log.info(f"report: stopped by an unexpected error (below); {unchanged}")
        raise


@main.command("tasks")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of a table.")
@click.option("--params", "params_path", default="params.yaml", show_default=True,
              help="Parameters file (for the epochs in use; defaults are shown if it is absent).")
def tasks_cmd(as_json: bool, params_path: str) -> None:
    """List the benchmark tasks (id, category, family, dataset, epochs, needs_download).

    epochs: the task's catalogue budget, or its `train.epochs` override (marked *)."""
    from .listing import print_table, task_rows

    epochs = {}
    if Path(params_path).is_file():
        epochs = dict(checked_params(params_path, import_models=False).train.epochs)
    rows = task_rows(epochs)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    print_table(["id", "category", "family", "dataset", "epochs", "download"],
                [[r["id"], r["category"], r["family"], r["dataset"],
                  f"{r['epochs']}{'*' if r['epochs_source'] == 'params' else ' '}",
                  "yes" if r["needs_download"] else "no"] for r in rows], right=frozenset({4}))
    if any(r["epochs_source"] == "params" for r in rows):
        click.echo(f"* epochs from `train.epochs` in {params_path} (the others: the catalogue's budget)")


@main.command("datasets")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of a table.")
@click.option("--mirror", default=None, help="Mirror directory to check [default: $NETZBENCH_MIRROR].")
def datasets_cmd(as_json: bool, mirror: str | None) -> None:
    """List the catalogue's datasets: category, families, size, source, license, availability."""
    from .listing import dataset_rows, print_table, shorten, size_text
    from .paths import resolve_mirror

    try:
        mirror_path = resolve_mirror(mirror)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    rows = dataset_rows(mirror_path)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    print_table(["id", "category", "families", "size", "license", "obtainable", "paper", "source"],
                [[r["id"], r["category"], ",".join(r["families"]),
                  size_text(r["size"]) if r["size"] else size_text(r["recorded_size"]) + " *", shorten(r["license"], 32),
                  r["obtainable"], "yes" if r["in_paper"] else "extra",
                  r["sources"][0]["url"] if r["sources"] else "-"] for r in rows])
    n_paper = sum(r["in_paper"] for r in rows)
    click.echo(f"\n{n_paper} datasets of the paper's catalogue, {len(rows) - n_paper} extra; size: of data/<id>/, "
               "* the recorded size until `netzbench fetch`; --json for full licenses")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
