"""Starts the benchmark's programs under mpirun: tra (its plans and runs) and the baselines
tools/bench/bench_* (docs/benchmarks.md), with the environment every one of them shares."""
import json
import os
import pathlib
import subprocess


class Runner:
    """Runs the programs under mpirun with one BLAS thread count per rank count."""

    def __init__(self, build, cores, cost=None):
        self.build = build
        self.cores = cores
        self.cost = cost  # tra's cost model (which plan rank N is); None: tra's default
        self.machines = {}  # ranks -> the machine profile `tra calibrate` measured for them
        self.env = dict(os.environ)
        self.env.pop("TRA_MACHINE", None)
        # OpenBLAS picks its kernel by CPU; benchmarks run what users get (calibrate() forces a
        # core only where OpenBLAS falls back to Prescott). compare.py --coretype overrides.
        self.env.pop("OPENBLAS_CORETYPE", None)
        for key, value in [("OMPI_ALLOW_RUN_AS_ROOT", "1"),
                           ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                           ("OMPI_MCA_btl_vader_single_copy_mechanism", "none"),
                           ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
                           # Binding one rank to one core would also bind its BLAS threads.
                           ("OMPI_MCA_hwloc_base_binding_policy", "none"),
                           # A rank waiting for a peer yields its core instead of spinning, so
                           # on a busy machine it does not take the core a peer computes on.
                           ("OMPI_MCA_mpi_yield_when_idle", "1")]:
            self.env.setdefault(key, value)
        if (build / "apps/tra").exists():
            self.core = self.avoid_prescott()

    def threads(self, ranks):
        return max(1, self.cores // ranks)

    def cost_flags(self):
        return ["--cost", self.cost] if self.cost else []

    def avoid_prescott(self):
        """OpenBLAS picks its kernel by CPU; where it falls back to its slow generic Prescott
        kernels on an AVX2 + FMA CPU it does not know (tra --version names the core), the
        benchmark (and the user, told by tra run's warning) sets OPENBLAS_CORETYPE=Haswell, and
        only then. Returns the core every program will run."""
        version = subprocess.run([self.build / "apps/tra", "--version"], env=self.env,
                                 capture_output=True, text=True, check=True).stdout
        if "core Prescott" in version and "OPENBLAS_CORETYPE" not in self.env and avx2_fma():
            self.env["OPENBLAS_CORETYPE"] = "Haswell"
        return self.env.get("OPENBLAS_CORETYPE") or version.rsplit("core ", 1)[-1].split(")")[0]

    def calibrate(self, ranks, path, quick, workflows=()):
        """`tra calibrate` on `ranks` ranks with the threads and the OpenBLAS core runs will use
        (avoid_prescott), also measuring the products of `workflows` at their shapes (--for);
        later plans and runs on that many ranks use the profile. Returns the profile's text."""
        argv = [self.build / "apps/tra", "calibrate", "-o", path] + (["--quick"] if quick else [])
        for w in workflows:
            argv += ["--for", w]
        self.mpirun(ranks, argv)
        self.machines[ranks] = str(path)
        return pathlib.Path(path).read_text()

    def mpirun(self, ranks, argv, threads=None, options=()):
        env = dict(self.env)
        env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(threads or self.threads(ranks))
        if ranks in self.machines:
            env["TRA_MACHINE"] = self.machines[ranks]
        cmd = ["mpirun", "-n", str(ranks)] + list(options) + [str(a) for a in argv]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError("%s failed (%d):\n%s%s" % (" ".join(cmd), out.returncode,
                                                           out.stdout, out.stderr))
        return out.stdout

    def baseline(self, name, ranks, args, threads=None):
        """Runs tools/bench/bench_NAME; its JSON line (seconds per repeat, ...)."""
        line = self.mpirun(ranks, [self.build / "tools/bench" / ("bench_" + name)] + args,
                           threads).strip().splitlines()[-1]
        return json.loads(line)

    def tra_run(self, ranks, workflow, work, plan=1, options=(), extra=()):
        """One `tra run` (with `extra` arguments; `options` go to mpirun); its report (the JSON
        of docs/runtime.md)."""
        report = work / "report.json"
        self.mpirun(ranks, [self.build / "apps/tra", "run", workflow, "--plan", plan] +
                    self.cost_flags() +
                    ["--report", report, "--out-dir", work / "out", "--force"] + list(extra),
                    options=options)
        return json.loads(report.read_text())

    def wire_bytes(self, ranks, workflow, work, plan):
        """Bytes the plan's operators put on the wire, counted by OpenMPI's pml monitoring
        rather than by tra: every point-to-point byte sent (lines `E` of the profiles; with
        pml_monitoring_enable 2 the collectives' own messages are `I` lines, not counted) minus
        the report's `write` (0: each rank writes its own tiles)."""
        prefix = work / "monitor"
        for old in work.glob("monitor.*.prof"):
            old.unlink()
        report = self.tra_run(ranks, workflow, work, plan, options=[
            "--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
            "--mca", "pml_monitoring_filename", str(prefix)])
        sent = 0
        for prof in work.glob("monitor.*.prof"):
            for line in prof.read_text().splitlines():
                if line.startswith("E\t"):
                    sent += int(line.split("\t")[3].split()[0])
        write = [op for op in report["operators"] if op["op"] == "write"]
        return sent - sum(op["measured_bytes"] + op["overhead_bytes"] for op in write)

    def plans(self, ranks, workflow, top, cost=None):
        """tra plan's listing on `ranks` sites under `cost` (default: the runner's)."""
        cost = cost or self.cost
        env = dict(self.env)
        if ranks in self.machines:
            env["TRA_MACHINE"] = self.machines[ranks]
        out = subprocess.run([self.build / "apps/tra", "plan", workflow, "--sites", str(ranks),
                              "--top", str(top), "--format", "json"] +
                             (["--cost", cost] if cost else []),
                             env=env, capture_output=True, text=True, check=True)
        return json.loads(out.stdout)["plans"]


def avx2_fma():
    """Whether the CPU runs OpenBLAS's Haswell kernels (x86 with AVX2 and FMA)."""
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return False
    return "avx2" in flags and "fma" in flags


def compute_seconds(report):
    """The run's computation: every operator but reading inputs and writing outputs."""
    return sum(op["seconds"] for op in report["operators"] if op["op"] not in ("read", "write"))


def predicted_compute_seconds(report):
    """The time model's prediction of compute_seconds: the same operators' predicted_seconds."""
    return sum(op.get("predicted_seconds", 0) for op in report["operators"]
               if op["op"] not in ("read", "write"))
