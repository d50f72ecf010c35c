"""Memory of the lab with every notebook open: one shared model server vs a model in each kernel.

    flock /tmp/embedded-model.lock python benchmarks/bench_lab_memory.py
    python benchmarks/bench_lab_memory.py --old-way 2      (kernels that each load their own model)

What `make lab` does, without a browser: start the shared model server (helpers.notebook), then open
the notebooks one after another as kernels (jupyter_client) that keep running, as a reader's open
tabs do. In each kernel: the notebook's first code cell (its imports and `setup()`), then one agent
turn through `get_model()` (a short prompt, so the model really runs in that kernel's backend).
After each kernel, and at the end, it prints the resident memory (RSS) and the proportional set
size (PSS: shared pages split between the processes that map them, so PSS sums to what the
processes really hold together) of the server and of every kernel.

Then the old way, for comparison: `--old-way N` kernels without AGENT_MEMORY_LLM_URL, each loading
its own model in-process (N is small: eleven copies would not fit in this machine's memory); the
per-kernel figure is multiplied out to the same number of notebooks.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_client.manager import KernelManager

from helpers.notebook import start_model_server
from helpers.paths import repo_root

PROBE = """\
from agents import Agent, ModelSettings, Runner
from helpers.notebook import setup as _setup

_env = _setup()
_probe = Agent(name="probe", instructions="Answer in one short sentence.", model=_env.model,
               model_settings=ModelSettings(max_tokens=12))
print("probe answer:", (await Runner.run(_probe, "Say hello to the course.")).final_output)
"""


def memory_kib(pid: int) -> dict[str, int]:
    """RSS and PSS of one process, in KiB, from /proc/<pid>/smaps_rollup."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("Rss", "Pss", "Pss_Anon", "Pss_File"):
            values[key] = int(rest.split()[0])
    return values


def available_kib() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1])
    raise RuntimeError("no MemAvailable in /proc/meminfo")


def gib(kib: float) -> str:
    return f"{kib / 1024 / 1024:5.2f}"


def first_code_cell(path: Path) -> str:
    notebook = nbformat.read(path, as_version=4)
    return next(c.source for c in notebook.cells if c.cell_type == "code")


def run(client, code: str, timeout: float) -> str:
    """Execute `code` in the kernel; return its stdout; raise on an error."""
    out: list[str] = []

    def hook(msg):
        kind, content = msg["header"]["msg_type"], msg["content"]
        if kind == "stream":
            out.append(content["text"])
        elif kind == "error":
            out.append("\n".join(content["traceback"]))

    reply = client.execute_interactive(code, timeout=timeout, output_hook=hook)
    if reply["content"]["status"] != "ok":
        raise RuntimeError("".join(out)[-3000:])
    return "".join(out)


def open_kernel(notebook: Path, env: dict[str, str], cwd: Path, timeout: float):
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(env=env, cwd=str(cwd), stderr=subprocess.DEVNULL)  # no TCP warning per kernel
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=120)
    started = time.perf_counter()
    run(client, first_code_cell(notebook), timeout)
    shown = run(client, PROBE, timeout)
    return manager, client, time.perf_counter() - started, shown


def kernel_pid(manager: KernelManager) -> int:
    return manager.provisioner.process.pid  # type: ignore[union-attr]


def close_kernels(kernels) -> None:
    for manager, client in kernels:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=int, default=0, help="open only the first N (default: all)")
    parser.add_argument("--old-way", type=int, default=2, metavar="N",
                        help="kernels with their own model, for comparison (0: skip)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per cell")
    args = parser.parse_args()

    notebooks = sorted((repo_root() / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if args.notebooks:
        notebooks = notebooks[:args.notebooks]
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "AGENT_MEMORY_LLM_URL")}
    base["PYTHONPATH"] = str(repo_root()) + os.pathsep + base.get("PYTHONPATH", "")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"{gib(available_kib())} GiB available at start")

    with tempfile.TemporaryDirectory() as work:
        cwd = Path(work)  # kernels run here; nothing is written next to the course
        before = available_kib()
        server = start_model_server()
        kernels = []
        try:
            server_mem = memory_kib(server.process.pid)
            print(f"\nshared model server {server.url}: ready in {server.seconds:.1f} s, "
                  f"RSS {gib(server_mem['Rss'])} GiB, PSS {gib(server_mem['Pss'])} GiB "
                  f"(anon {gib(server_mem['Pss_Anon'])}, file {gib(server_mem['Pss_File'])})")
            env = {**base, "AGENT_MEMORY_LLM_URL": server.url}
            print("\nkernels opened one after another (GiB; totals = server + every kernel so far):")
            print(f"{'notebook':28} {'cell+call s':>11} {'kernel RSS':>10} {'kernel PSS':>10} "
                  f"{'total RSS':>9} {'total PSS':>9} {'used':>6}")
            for notebook in notebooks:
                manager, client, seconds, shown = open_kernel(notebook, env, cwd, args.timeout)
                kernels.append((manager, client))
                mems = [memory_kib(server.process.pid)] + [memory_kib(kernel_pid(m)) for m, _ in kernels]
                mine = mems[-1]
                print(f"{notebook.name:28} {seconds:11.1f} {gib(mine['Rss']):>10} {gib(mine['Pss']):>10} "
                      f"{gib(sum(m['Rss'] for m in mems)):>9} {gib(sum(m['Pss'] for m in mems)):>9} "
                      f"{gib(before - available_kib()):>6}", flush=True)
                if "shared model server" not in shown:
                    raise RuntimeError(f"{notebook.name}: the kernel is not on the shared server:\n{shown}")
            server_mem = memory_kib(server.process.pid)
            kernel_mems = [memory_kib(kernel_pid(m)) for m, _ in kernels]
            shared_pss = server_mem["Pss"] + sum(m["Pss"] for m in kernel_mems)
            print(f"\nafter one call in every kernel, the server holds RSS {gib(server_mem['Rss'])} GiB "
                  f"(anon {gib(server_mem['Pss_Anon'])}, file {gib(server_mem['Pss_File'])})")
            print(f"shared: server PSS {gib(server_mem['Pss'])} GiB + {len(kernels)} kernels PSS "
                  f"{gib(sum(m['Pss'] for m in kernel_mems))} GiB "
                  f"(mean {gib(sum(m['Pss'] for m in kernel_mems) / len(kernels))} each) "
                  f"= {gib(shared_pss)} GiB; MemAvailable fell by {gib(before - available_kib())} GiB")
        finally:
            close_kernels(kernels)
            server.stop()

        if args.old_way:
            print(f"\nthe old way: {args.old_way} kernel(s), each with its own model in-process (GiB):")
            kernels = []
            before = available_kib()
            try:
                for notebook in notebooks[:args.old_way]:
                    manager, client, seconds, shown = open_kernel(notebook, base, cwd, args.timeout)
                    kernels.append((manager, client))
                    mine = memory_kib(kernel_pid(manager))
                    print(f"{notebook.name:28} {seconds:11.1f} s  RSS {gib(mine['Rss'])}  PSS {gib(mine['Pss'])}"
                          f"  (anon {gib(mine['Pss_Anon'])}, file {gib(mine['Pss_File'])})", flush=True)
                mems = [memory_kib(kernel_pid(m)) for m, _ in kernels]
                # Each kernel's own memory (anonymous: KV cache, compute buffers, Python) is its
                # alone; the weights are mapped from the GGUF file, and the page cache keeps one copy
                # of them however many kernels map it. So N kernels hold N x anon + the file once.
                anon = sum(m["Pss_Anon"] for m in mems) / len(mems)
                file_once = sum(m["Pss_File"] for m in mems)
                n = len(notebooks)
                print(f"old way: mean RSS {gib(sum(m['Rss'] for m in mems) / len(mems))} GiB per kernel, of "
                      f"which {gib(anon)} GiB its own; for {n} notebooks: {n} x {gib(anon).strip()} + "
                      f"{gib(file_once).strip()} (mapped weights, once) = {gib(n * anon + file_once)} GiB "
                      f"(vs {gib(shared_pss)} GiB shared); MemAvailable fell by "
                      f"{gib(before - available_kib())} GiB for {len(mems)}")
            finally:
                close_kernels(kernels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
