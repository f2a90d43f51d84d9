#!/usr/bin/env python3
"""tilefit's benchmark harness (run it through bench/run.sh; see bench/README.md).

Times tilefit, Clang's own parse with tilefit's flags, and nvcc on the same inputs with
hyperfine, takes the peak RSS of every timed run with GNU time, and writes:

  OUT/results.json    every measurement (hyperfine's figures, peak RSS, exit codes, load)
  OUT/summary.md      the tables bench/README.md shows
  OUT/raw/            hyperfine's JSON exports, RSS logs, the generated baseline scripts
  OUT/work/           the configured example project and the generated projects

Standard library only.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

import lsp_timing

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)

# Repetitions and sizes. The full run is sized for about 20 minutes on a 2-core machine; each
# entry is (warmup, runs).
FULL = {
    "unit": (1, 5),          # one unit, one architecture: example units, host-parse units
    "heavy": (1, 3),         # the CUB unit (about 2 s a parse, 6 s with nvcc)
    "project": (1, 3),       # the example project (5 units x 3 architectures)
    "inst": (1, 3),          # the instantiation sweep (one unit each)
    "sample": (1, 2),        # a sample of the generated project's units, with nvcc
    "gen": (0, 2),           # the whole generated project (about a minute a run)
    "scale": (0, 1),         # the unit-count sweep (50 to 400 units)
    "gen_units": 200,
    "sample_units": 6,
    "scale_units": [50, 100, 200, 400],
    "inst_counts": [10, 50, 100, 200],
    "gen_instantiations": 24,
    "lsp_edits": 10,
}
QUICK = {
    "unit": (0, 1), "heavy": (0, 1), "project": (0, 1), "inst": (0, 1), "sample": (0, 1),
    "gen": (0, 1), "scale": (0, 1),
    "gen_units": 4,
    "sample_units": 2,
    "scale_units": [1, 2, 4, 8],
    "inst_counts": [5, 20],
    "gen_instantiations": 6,
    "lsp_edits": 3,
}

EXAMPLE_FLAGS = ["-I", "compile_commands_example/include", "-DSTENCIL_RADIUS=4", "-std=c++17"]
EXAMPLE_UNITS = ["dynamic.cu", "gemm.cu", "reduce.cu", "stencil.cu", "transpose.cu"]
ONE_ARCH = ["sm_90"]
THREE_ARCHS = ["sm_80", "sm_89", "sm_90"]

# Targets from the project's issue (reported against, not enforced).
TARGET_PARSE_RATIO = 1.10
TARGET_PARSE_RATIO_PCH = 0.5
TARGET_NVCC_RATIO = 8.0
TARGET_J2_SPEEDUP = 1.8
TARGET_RSS_RATIO = 1.2


def log(msg):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def cpu_busy_seconds():
    """Machine-wide busy CPU time (all cores) from /proc/stat, in seconds."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def other_cpu(seconds):
    """Cores busy over `seconds` of sleeping here: other processes' load."""
    b0, t0 = cpu_busy_seconds(), time.time()
    time.sleep(seconds)
    b1, t1 = cpu_busy_seconds(), time.time()
    return 0.0 if b0 is None or b1 is None else (b1 - b0) / (t1 - t0)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return None


class Bench:
    def __init__(self, args, cfg):
        self.args = args
        self.cfg = cfg
        self.out = os.path.abspath(args.out)
        self.raw = os.path.join(self.out, "raw")
        self.work = os.path.join(self.out, "work")
        for d in (self.raw, self.work):
            os.makedirs(d, exist_ok=True)
        self.tilefit = os.path.abspath(args.tilefit)
        self.clang = args.clang
        self.nvcc = args.nvcc
        self.results = {"measurements": {}}
        self.count = 0
        # A tilefit with a result cache (on by default) gets --no-cache in every measurement
        # but the warm-cache ones: the targets are without cache.
        self.help = subprocess.run([self.tilefit, "--help"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True).stdout
        self.has_cache = "--no-cache" in self.help
        self.cache_dir = os.path.join(self.work, "cache")
        # The precompiled CUDA runtime headers live in the cache folder (pch/); the
        # measurements "with precompiled headers" get a folder of their own whose parse
        # results are removed before every run, so that every unit is parsed.
        self.pch_cache_dir = os.path.join(self.work, "pch-cache")

    # -- measuring ----------------------------------------------------------------------------

    def measure(self, key, argv, cwd, reps, tool, cores=1, prepare=None):
        """Time `argv` (run in `cwd`) with hyperfine; every run goes through GNU time for its
        peak RSS. Returns (and records under `key`) the figures. `cores`: how many cores the
        command keeps busy (2 for tilefit -j 2), for the noise accounting. `prepare`: an argv
        hyperfine runs (untimed) before every run."""
        warmup, runs = reps
        self.count += 1
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", key)
        rss_file = os.path.join(self.raw, slug + ".rss")
        json_file = os.path.join(self.raw, slug + ".hyperfine.json")
        for f in (rss_file, json_file):
            if os.path.exists(f):
                os.remove(f)
        wrapped = ["/usr/bin/time", "-f", "%M", "-a", "-o", rss_file] + argv
        cmd = ["hyperfine", "-N", "-i", "--style", "basic", "--warmup", str(warmup),
               "--runs", str(runs), "--export-json", json_file, "--command-name", key]
        if prepare:
            cmd += ["--prepare", shlex.join(prepare)]
        cmd.append(shlex.join(wrapped))
        spare = max(0, (os.cpu_count() or 1) - cores)
        waited = self.wait_quiet(spare)
        log("%-58s %s" % (key, "(warmup %d, runs %d)" % (warmup, runs)))
        busy0, load0, own0, t0 = cpu_busy_seconds(), loadavg(), os.times(), time.time()
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        busy1, own1, t1 = cpu_busy_seconds(), os.times(), time.time()
        if p.returncode != 0:
            sys.exit("hyperfine failed for %s:\n%s" % (key, p.stdout))
        with open(json_file) as f:
            r = json.load(f)["results"][0]
        rss = []
        with open(rss_file) as f:
            for line in f:
                line = line.strip()
                if line.isdigit():
                    rss.append(int(line))
        # Other processes' CPU use while this ran, in cores: a noise indicator.
        other = None
        if busy0 is not None and busy1 is not None and t1 > t0:
            own = (own1.children_user + own1.children_system) - (own0.children_user + own0.children_system)
            other = max(0.0, (busy1 - busy0 - own) / (t1 - t0))
        codes = r.get("exit_codes") or []
        m = {
            "tool": tool,
            "command": argv,
            "cwd": cwd,
            "warmup": warmup,
            "runs": runs,
            "median_s": r["median"],
            "mean_s": r["mean"],
            "stddev_s": r["stddev"],
            "min_s": r["min"],
            "max_s": r["max"],
            "times_s": r["times"],
            "user_s": r["user"],
            "system_s": r["system"],
            "exit_codes": codes,
            "peak_rss_kb": int(statistics.median(rss)) if rss else None,
            "peak_rss_kb_max": max(rss) if rss else None,
            "other_load_cores": other,
            "cores_used": cores,
            # other processes needed more than the cores this command left idle
            "contended": other is not None and other > spare + 0.15,
            "loadavg_start": load0,
            "waited_for_quiet_s": waited,
        }
        bad = [c for c in codes if c not in ((0, 1) if tool == "tilefit" else (0,))]
        if bad:
            m["failed"] = True
            log("  WARNING: %s exited with %s (see %s)" % (key, sorted(set(bad)), json_file))
        log("  median %.3f s (spread %.3f-%.3f s), peak RSS %s MiB%s"
            % (m["median_s"], m["min_s"], m["max_s"],
               "%.0f" % (m["peak_rss_kb"] / 1024) if m["peak_rss_kb"] else "?",
               "" if other is None or other < 0.15 else ", other load %.2f cores%s"
               % (other, " (contended)" if m["contended"] else "")))
        self.results["measurements"][key] = m
        return m

    def wait_quiet(self, spare):
        """With --wait-quiet S: wait (at most S seconds) until other processes leave the
        measurement its cores (they may use the `spare` ones: under spare + 0.25 cores busy
        over a second)."""
        if self.args.wait_quiet <= 0:
            return 0.0
        t0 = time.time()
        told = False
        while time.time() - t0 < self.args.wait_quiet:
            load = other_cpu(1.0)
            if load < spare + 0.25:
                break
            if not told:
                log("  other processes use %.2f cores; waiting (at most %d s)"
                    % (load, self.args.wait_quiet))
                told = True
        return round(time.time() - t0, 1)

    # -- commands -----------------------------------------------------------------------------

    def tilefit_argv(self, archs, files=(), flags=None, db=None, jobs=1, cache=False):
        argv = [self.tilefit]
        if db:
            argv += ["-p", db]
        argv += ["--arch=" + ",".join(archs), "-j", str(jobs)]
        if self.has_cache:
            if cache == "pch":
                argv += ["--cache-dir=" + self.pch_cache_dir]
            else:
                argv += ["--cache-dir=" + self.cache_dir] if cache else ["--no-cache"]
        argv += list(files)
        if flags is not None:
            argv += ["--"] + list(flags)
        return argv

    def cache_footprint(self, ex_build):
        """The cache folder one run over the example project (3 architectures) leaves, from
        empty: its size, and its precompiled headers: the runtime headers' (one per
        architecture and side is the target) and the shared #include lines' (prefix-*)."""
        if not self.has_cache:
            return None
        d = os.path.join(self.work, "footprint-cache")
        shutil.rmtree(d, ignore_errors=True)
        subprocess.run(self.tilefit_argv(THREE_ARCHS, db=ex_build)[:1] +
                       ["-p", ex_build, "--arch=" + ",".join(THREE_ARCHS), "--quiet",
                        "--cache-dir=" + d], cwd=ex_build, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        size, runtime, prefix = 0, 0, 0
        for root, _, files in os.walk(d):
            for f in files:
                size += os.path.getsize(os.path.join(root, f))
                if f.endswith(".pch"):
                    if f.startswith("prefix-"):
                        prefix += 1
                    else:
                        runtime += 1
        log("  cache folder after the example project: %.1f MB, %d runtime-header and %d "
            "shared-include precompiled headers" % (size / 1e6, runtime, prefix))
        return {"bytes": size, "runtime_pch": runtime, "prefix_pch": prefix,
                "archs": len(THREE_ARCHS)}

    def parse_commands(self, tilefit_argv, cwd, expected):
        """The Clang command lines tilefit parses with (--show-parse-commands, on stderr, one
        per unit and architecture, printed before any parse starts). Once all are printed the
        run is stopped: only the lines are wanted."""
        argv = [tilefit_argv[0], "--show-parse-commands", "--quiet"] + tilefit_argv[1:]
        p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
        cmds = []
        for line in p.stderr:
            if line.startswith("clang++ "):
                cmds.append(shlex.split(line))
                if len(cmds) >= expected:
                    break
        p.kill()
        p.wait()
        if len(cmds) != expected:
            sys.exit("expected %d parse commands from %s, got %d"
                     % (expected, shlex.join(argv), len(cmds)))
        return [[self.clang] + c[1:] for c in cmds]

    def script(self, name, cwd, commands):
        """A shell script that runs `commands` one after the other in `cwd`, stopping at the
        first failure; returns the argv that runs it."""
        path = os.path.join(self.raw, name + ".sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\nset -e\ncd %s\n" % shlex.quote(cwd))
            for c in commands:
                f.write(shlex.join(c) + "\n")
        return ["/bin/sh", path]

    def nvcc_argv(self, file, flags, archs):
        gencode = []
        for a in archs:
            n = a[3:]
            gencode += ["-gencode", "arch=compute_%s,code=sm_%s" % (n, n)]
        return [self.nvcc, "-c", "-o", "/dev/null", "-Xptxas", "-v"] + gencode + list(flags) + [file]

    def clear_parse_results(self):
        """The argv that empties the precompiled-header measurements' cache folder of all but
        the precompiled headers."""
        return self.script("clear_parse_results", self.work, [
            ["mkdir", "-p", self.pch_cache_dir],
            ["find", self.pch_cache_dir, "-mindepth", "1", "-maxdepth", "1", "!", "-name", "pch",
             "-exec", "rm", "-rf", "{}", "+"]])

    def measure_pch(self, key, tf_argv, cwd, reps):
        """tilefit with the precompiled CUDA runtime headers (built by an untimed run first),
        every unit parsed: the parse results are removed before every run."""
        argv = [a for a in tf_argv if a != "--no-cache" and not a.startswith("--cache-dir=")]
        argv.insert(1, "--cache-dir=" + self.pch_cache_dir)
        subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return self.measure(key, argv, cwd, reps, "tilefit", prepare=self.clear_parse_results())

    def compare(self, key, label, archs, units, tf_argv, cwd, reps, nvcc_cmds, host_parse,
                nvcc_reps=None):
        """tilefit (-j 1, without and with precompiled headers), Clang's parses with tilefit's
        flags (one after the other) and nvcc (one unit after the other) on the same units."""
        row = {"label": label, "archs": archs, "units": units, "host_parse": host_parse}
        clang_cmds = self.parse_commands(tf_argv, cwd, units * len(archs))
        row["tilefit"] = self.measure(key + "/tilefit", tf_argv, cwd, reps, "tilefit")
        if self.has_cache:
            row["tilefit_pch"] = self.measure_pch(key + "/tilefit-pch", tf_argv, cwd, reps)
        row["clang"] = self.measure(key + "/clang-parse",
                                    self.script(key.replace("/", "_") + "_clang", cwd, clang_cmds),
                                    cwd, reps, "clang")
        if nvcc_cmds:
            row["nvcc"] = self.measure(key + "/nvcc",
                                       self.script(key.replace("/", "_") + "_nvcc", cwd, nvcc_cmds),
                                       cwd, nvcc_reps or reps, "nvcc")
        self.results.setdefault("comparisons", []).append(row)
        return row

    # -- inputs -------------------------------------------------------------------------------

    def generate(self, n, name, k):
        d = os.path.join(self.work, name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        subprocess.run([sys.executable, os.path.join(BENCH, "gen_project.py"), str(n), d,
                        "--instantiations", str(k)], check=True, stdout=subprocess.DEVNULL)
        return d

    def configure_example(self):
        d = os.path.join(self.work, "example-build")
        if os.path.isdir(d):
            shutil.rmtree(d)
        log("configuring compile_commands_example with CMake")
        p = subprocess.run(["cmake", "-S", os.path.join(ROOT, "compile_commands_example"),
                            "-B", d, "-DCMAKE_CUDA_COMPILER=" + self.nvcc],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0 or not os.path.exists(os.path.join(d, "compile_commands.json")):
            sys.exit("cmake could not configure compile_commands_example:\n" + p.stdout)
        return d

    # -- the run ------------------------------------------------------------------------------

    def run(self):
        cfg = self.cfg
        started = time.time()
        self.results["machine"] = {
            "nproc": os.cpu_count(),
            "cpu": cpu_model(),
            "memory_gib": mem_gib(),
            "kernel": platform.release(),
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        }
        self.results["versions"] = {
            "tilefit": first_line([self.tilefit, "--version"]),
            "tilefit_binary": self.tilefit,
            "tilefit_sha256": sha256(self.tilefit),
            "tilefit_mtime": datetime.datetime.fromtimestamp(
                os.path.getmtime(self.tilefit)).astimezone().isoformat(timespec="seconds"),
            "tilefit_result_cache": self.has_cache,
            "clang": first_line([self.clang, "--version"]),
            "nvcc": last_line([self.nvcc, "--version"]),
            "hyperfine": first_line(["hyperfine", "--version"]),
            "git_head": first_line(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]),
        }
        self.results["mode"] = "quick" if self.args.quick else "full"
        self.results["config"] = cfg
        log("tilefit %s; %s; machine: %d cores" % (self.tilefit, self.results["versions"]["tilefit"],
                                                    os.cpu_count()))

        # (a) the example project: each unit for sm_90, then the whole database for 3 archs.
        ex_build = self.configure_example()
        ex_src = os.path.join(ROOT, "compile_commands_example", "src")
        for u in EXAMPLE_UNITS:
            f = os.path.join(ex_src, u)
            self.compare("example/%s/sm_90" % u, "example %s" % u, ONE_ARCH, 1,
                         self.tilefit_argv(ONE_ARCH, [f], EXAMPLE_FLAGS), ROOT, cfg["unit"],
                         [self.nvcc_argv(f, EXAMPLE_FLAGS, ONE_ARCH)], mentions_cuda_arch(f))
        self.compare("example/project/3arch", "example project (-p)", THREE_ARCHS,
                     len(EXAMPLE_UNITS), self.tilefit_argv(THREE_ARCHS, db=ex_build), ex_build,
                     cfg["project"],
                     [self.nvcc_argv(os.path.join(ex_src, u), abs_example_flags(), THREE_ARCHS)
                      for u in EXAMPLE_UNITS],
                     any(mentions_cuda_arch(os.path.join(ex_src, u)) for u in EXAMPLE_UNITS))
        self.results["cache_after_example"] = self.cache_footprint(ex_build)

        # (b) the heavy unit.
        heavy = os.path.join(BENCH, "inputs", "heavy_cub.cu")
        for archs, tag in ((ONE_ARCH, "sm_90"), (THREE_ARCHS, "3arch")):
            self.compare("heavy/%s" % tag, "heavy_cub.cu (CUB, cg, pipeline)", archs, 1,
                         self.tilefit_argv(archs, [heavy], ["-std=c++17"]), ROOT, cfg["heavy"],
                         [self.nvcc_argv(heavy, ["-std=c++17"], archs)], False)

        # (b2) a CuTe-heavy unit (issue 19.6): CuTe's sgemm_sm80 tutorial with the flags
        # CUTLASS's CMake gives nvcc, where a CUTLASS checkout is given (--cutlass or
        # TILEFIT_CUTLASS_DIR); nothing is downloaded.
        cutlass = self.args.cutlass or os.environ.get("TILEFIT_CUTLASS_DIR", "")
        cute = os.path.join(cutlass, "examples", "cute", "tutorial", "sgemm_sm80.cu")
        if cutlass and os.path.exists(cute):
            cute_flags = ["-std=c++17", "--expt-relaxed-constexpr",
                          "-DCUTLASS_ENABLE_TENSOR_CORE_MMA=1",
                          "-I" + os.path.join(cutlass, "include"),
                          "-I" + os.path.join(cutlass, "tools", "util", "include"),
                          "-I" + os.path.join(cutlass, "examples", "common")]
            self.compare("cute/sm_80", "CuTe sgemm_sm80 tutorial", ["sm_80"], 1,
                         self.tilefit_argv(["sm_80"], [cute], cute_flags), ROOT, cfg["heavy"],
                         [self.nvcc_argv(cute, cute_flags, ["sm_80"])], False)
        else:
            log("no CUTLASS checkout (--cutlass DIR or TILEFIT_CUTLASS_DIR): the CuTe unit is "
                "not measured")

        # (c) the generated project: a sample of its units with all three tools, for one and
        # three architectures; the whole project for tilefit and Clang.
        n = cfg["gen_units"]
        k = cfg["gen_instantiations"]
        gen = self.generate(n, "gen-%d" % n, k)
        step = max(1, n // cfg["sample_units"])
        sample = [os.path.join(gen, "src", "unit_%04d.cu" % i) for i in range(0, n, step)]
        sample = sample[:cfg["sample_units"]]
        gen_flags = ["-DGEN_PROJECT=1", "-I" + os.path.join(gen, "include"), "-std=c++17"]
        for archs, db, tag in ((ONE_ARCH, "build-sm90", "sm_90"), (THREE_ARCHS, "build-3arch", "3arch")):
            dbdir = os.path.join(gen, db)
            self.compare("generated/sample%d/%s" % (len(sample), tag),
                         "generated, %d of %d units" % (len(sample), n), archs, len(sample),
                         self.tilefit_argv(archs, sample, db=dbdir), dbdir, cfg["sample"],
                         [self.nvcc_argv(f, gen_flags, archs) for f in sample], False)
        dbdir = os.path.join(gen, "build-sm90")
        whole = self.compare("generated/all%d/sm_90" % n, "generated project, all %d units" % n,
                             ONE_ARCH, n, self.tilefit_argv(ONE_ARCH, db=dbdir), dbdir, cfg["gen"],
                             None, False)

        # -j 1 against -j 2 on the whole generated project.
        j2 = self.measure("generated/all%d/sm_90/tilefit-j2" % n,
                          self.tilefit_argv(ONE_ARCH, db=dbdir, jobs=2), dbdir, cfg["gen"],
                          "tilefit", cores=2)
        self.results["jobs"] = {"units": n, "j1": whole["tilefit"], "j2": j2}

        # Scaling with the unit count (tilefit -j 1, sm_90: one core, so that another process
        # on the other core disturbs it least).
        scale = []
        for m in cfg["scale_units"]:
            if m == n:
                meas = whole["tilefit"]
            else:
                d = self.generate(m, "gen-%d" % m, k)
                meas = self.measure("scale/units%d/tilefit" % m,
                                    self.tilefit_argv(ONE_ARCH, db=os.path.join(d, "build-sm90")),
                                    os.path.join(d, "build-sm90"), cfg["scale"], "tilefit")
                if not self.args.keep_work:
                    shutil.rmtree(d)
            scale.append({"units": m, "tilefit": meas})
        self.results["scale_units"] = scale

        # Scaling with the instantiations in one unit.
        inst = []
        for kk in cfg["inst_counts"]:
            d = self.generate(1, "inst-%d" % kk, kk)
            f = os.path.join(d, "src", "unit_0000.cu")
            db = os.path.join(d, "build-sm90")
            row = self.compare("instantiations/%d" % kk, "1 unit, %d instantiations" % kk,
                               ONE_ARCH, 1, self.tilefit_argv(ONE_ARCH, db=db), db, cfg["inst"],
                               [self.nvcc_argv(f, ["-DGEN_PROJECT=1", "-I" + os.path.join(d, "include"),
                                                   "-std=c++17"], ONE_ARCH)], False)
            row["instantiations"] = kk
            inst.append(row)
        self.results["scale_instantiations"] = inst
        # (kept in "comparisons" too, but reported in their own table)
        for row in inst:
            row["sweep"] = True

        # The host-side parse: the same unit with and without __CUDA_ARCH__ in its own file.
        host = {}
        for archs, tag in ((ONE_ARCH, "sm_90"), (THREE_ARCHS, "3arch")):
            for v in ("on", "off"):
                f = os.path.join(BENCH, "inputs", "host_parse_%s.cu" % v)
                host[(tag, v)] = self.measure("host-parse/%s/%s/tilefit" % (tag, v),
                                              self.tilefit_argv(archs, [f], ["-std=c++17"]), ROOT,
                                              cfg["unit"] if tag == "sm_90" else cfg["heavy"],
                                              "tilefit")
        f = os.path.join(BENCH, "inputs", "host_parse_on.cu")
        dev = self.parse_commands(self.tilefit_argv(ONE_ARCH, [f], ["-std=c++17"]), ROOT, 1)[0]
        host_only = ["--cuda-host-only" if a == "--cuda-device-only" else a for a in dev]
        host["clang-device"] = self.measure("host-parse/sm_90/clang-device-parse",
                                            self.script("host_parse_clang_device", ROOT, [dev]),
                                            ROOT, cfg["unit"], "clang")
        host["clang-host"] = self.measure("host-parse/sm_90/clang-host-parse",
                                          self.script("host_parse_clang_host", ROOT, [host_only]),
                                          ROOT, cfg["unit"], "clang")
        self.results["host_parse"] = {("%s/%s" % k if isinstance(k, tuple) else k): v
                                      for k, v in host.items()}

        # The language server: a unit opened, then edited again and again (below its #include
        # block). Three servers: cold (every analysis parses everything), the precompiled CUDA
        # runtime headers of the cache folder (built while the file is opened, in a fresh
        # folder), and the default, the file's own preamble (its #include block and the runtime
        # headers, precompiled in memory when the file is opened, reused by every edit).
        if self.has_cache:
            heavy_db = os.path.join(self.work, "lsp-heavy")
            os.makedirs(heavy_db, exist_ok=True)
            heavy = os.path.join(BENCH, "inputs", "heavy_cub.cu")
            with open(os.path.join(heavy_db, "compile_commands.json"), "w") as f:
                json.dump([{"directory": ROOT, "file": heavy,
                            "arguments": ["clang++", "-x", "cuda", "--cuda-gpu-arch=sm_90",
                                          "-std=c++17", "-c", heavy]}], f)
            sessions = [("gemm.cu", os.path.join(ex_src, "gemm.cu"), ex_build,
                         "example gemm.cu"),
                        ("heavy_cub.cu", heavy, heavy_db, "heavy_cub.cu (CUB, cg, pipeline)")]
            fresh = os.path.join(self.work, "lsp-cache")
            lsp = {"edits": cfg["lsp_edits"], "files": []}
            for name, f, db, label in sessions:
                entry = {"file": os.path.relpath(f, ROOT)}
                base = ["--arch=sm_90", "--compile-commands-dir=" + db]
                for mode, extra in (("cold", ["--no-cache", "--lsp-preambles=false"]),
                                    ("pch", ["--cache-dir=" + fresh, "--lsp-preambles=false"]),
                                    ("preamble", ["--no-cache"])):
                    if os.path.isdir(fresh):
                        shutil.rmtree(fresh)
                    log("lsp/%s/%s: open, %d edits" % (name, mode, cfg["lsp_edits"]))
                    entry[mode] = lsp_timing.time_session(self.tilefit, base + extra, f, ROOT,
                                                          cfg["lsp_edits"])
                    log("  open %.3f s, edits median %.3f s" % (entry[mode]["open_s"],
                                                               entry[mode]["median_edit_s"]))
                row = [c for c in self.results["comparisons"]
                       if c["label"] == label and len(c["archs"]) == 1]
                entry["clang"] = row[0]["clang"] if row else None
                lsp["files"].append(entry)
            self.results["lsp"] = lsp

        # The result cache, warm (when this tilefit has one): the warmup run fills a private
        # cache folder, the timed runs read it.
        if self.has_cache:
            if os.path.isdir(self.cache_dir):
                shutil.rmtree(self.cache_dir)
            warm = []
            rows = {c["label"] + "|" + ",".join(c["archs"]): c for c in self.results["comparisons"]}
            cases = [("example project (-p)", THREE_ARCHS, self.tilefit_argv(THREE_ARCHS, db=ex_build, cache=True), ex_build),
                     ("heavy_cub.cu (CUB, cg, pipeline)", ONE_ARCH,
                      self.tilefit_argv(ONE_ARCH, [heavy], ["-std=c++17"], cache=True), ROOT),
                     ("generated, %d of %d units" % (len(sample), n), THREE_ARCHS,
                      self.tilefit_argv(THREE_ARCHS, sample, db=os.path.join(gen, "build-3arch"), cache=True),
                      os.path.join(gen, "build-3arch"))]
            for label, archs, argv, cwd in cases:
                w, r = cfg["unit"]
                m = self.measure("warm-cache/%s/%s" % (re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-"),
                                                      ",".join(archs)),
                                 argv, cwd, (max(1, w), r), "tilefit")
                base = rows.get(label + "|" + ",".join(archs))
                warm.append({"label": label, "archs": archs, "warm": m,
                             "cold": base["tilefit"] if base else None,
                             "clang": base["clang"] if base else None})
            # The same rerun over a cache folder that already holds 100,000 entries of other
            # units (what months of real projects leave): a hit must cost the same.
            big = os.path.join(self.work, "cache-100k")
            entries = 2000 if self.args.quick else 100000
            fill_cache(big, entries)
            argv = [("--cache-dir=" + big) if a.startswith("--cache-dir=") else a
                    for a in self.tilefit_argv(ONE_ARCH, [heavy], ["-std=c++17"], cache=True)]
            w, r = cfg["unit"]
            label = "heavy_cub.cu, cache of %d other entries" % entries
            m = self.measure("warm-cache/heavy-cub-100k/" + ",".join(ONE_ARCH), argv, ROOT,
                             (max(1, w), r), "tilefit")
            base = rows.get("heavy_cub.cu (CUB, cg, pipeline)|" + ",".join(ONE_ARCH))
            warm.append({"label": label, "archs": ONE_ARCH, "warm": m,
                         "cold": base["tilefit"] if base else None,
                         "clang": base["clang"] if base else None})
            shutil.rmtree(big, ignore_errors=True)
            self.results["warm_cache"] = warm

        self.results["elapsed_s"] = time.time() - started
        summary = render(self.results)  # also adds the ratios to the results
        with open(os.path.join(self.out, "summary.md"), "w") as fh:
            fh.write(summary)
        with open(os.path.join(self.out, "results.json"), "w") as fh:
            json.dump(self.results, fh, indent=1)
        print()
        print(summary)
        log("%d measurements in %.0f s; results in %s" % (self.count, self.results["elapsed_s"], self.out))
        return 0


# -- helpers ------------------------------------------------------------------------------------

def sha256(path):
    import hashlib
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def abs_example_flags():
    return ["-I", os.path.join(ROOT, "compile_commands_example", "include"), "-DSTENCIL_RADIUS=4",
            "-std=c++17"]


def mentions_cuda_arch(path):
    """An approximation of tilefit's test for a host-side parse (a block the device side skips
    under a directive on __CUDA_ARCH__ that holds a launch): the unit's file has a host-side
    guard (#ifndef __CUDA_ARCH__, #if !defined(__CUDA_ARCH__)) and a launch."""
    with open(path, errors="replace") as f:
        text = f.read()
    guard = re.search(r"^\s*#\s*(ifndef\s+__CUDA_ARCH__|if\s*!\s*defined\s*\(?\s*__CUDA_ARCH__)",
                      text, re.M)
    return bool(guard) and ("<<<" in text or "cudaLaunch" in text)


def first_line(argv):
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        return out.strip().splitlines()[0] if out.strip() else ""
    except OSError:
        return "?"


def last_line(argv):
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        lines = [l for l in out.strip().splitlines() if l.strip()]
        return lines[-2] if len(lines) > 1 else (lines[0] if lines else "")
    except OSError:
        return "?"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def mem_gib():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


# -- the report ---------------------------------------------------------------------------------

def fmt_t(m):
    """median (min-max) in s or ms."""
    if m is None:
        return "—"
    med, lo, hi = m["median_s"], m["min_s"], m["max_s"]
    if med < 10:
        s = "%.0f ms" % (med * 1000) if med < 1 else "%.2f s" % med
        if m["runs"] > 1:
            s += " (%s–%s)" % (("%.0f" % (lo * 1000), "%.0f" % (hi * 1000)) if hi < 1
                               else ("%.2f" % lo, "%.2f" % hi))
    else:
        s = "%.1f s" % med
        if m["runs"] > 1:
            s += " (%.1f–%.1f)" % (lo, hi)
    return s + ("" if not m.get("failed") else " FAILED")


def fmt_rss(m):
    if m is None or not m.get("peak_rss_kb"):
        return "—"
    return "%.0f" % (m["peak_rss_kb"] / 1024)


def ratio(a, b):
    if a is None or b is None or not b:
        return None
    return a / b


def cpu(m):
    """user + system CPU time of a measurement (hyperfine's mean), in s."""
    return None if m is None else m["user_s"] + m["system_s"]


def fmt_r(x, nd=2):
    return "—" if x is None else ("%." + str(nd) + "f") % x


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def mark(ok):
    return "yes" if ok else "**no**"


def fill_cache(d, n):
    """A cache folder holding `n` entries of other units, laid out as tilefit lays out its
    own (`<2 hex>/<40 hex>.json`, about 2 KB each), with no size counters: the first run that
    stores counts each subfolder once."""
    if os.path.isdir(d):
        shutil.rmtree(d)
    import hashlib
    blob = os.urandom(2048)
    for i in range(n):
        h = hashlib.sha1(str(i).encode()).hexdigest()
        sub = os.path.join(d, h[:2])
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, h + ".json"), "wb") as f:
            f.write(blob)


def render(R):
    M = R["machine"]
    V = R["versions"]
    L = []
    L.append("## Run of %s (%s mode)" % (M["date"], R["mode"]))
    L.append("")
    waited = sum(m.get("waited_for_quiet_s") or 0 for m in R["measurements"].values())
    L.append("Machine: `nproc` = %d, %s, %s GiB. tilefit `%s` (%s, file dated %s, sha256 %s…; "
             "the repository was at %s%s); %s; nvcc %s; %s. Whole run: %.1f min%s."
             % (M["nproc"], M["cpu"], M["memory_gib"], V["tilefit_binary"], V["tilefit"],
                V.get("tilefit_mtime", "?"), V.get("tilefit_sha256", "?"), V["git_head"],
                "" if V.get("tilefit_result_cache") is None else
                (", result cache off (`--no-cache`) but in the warm-cache table"
                 if V["tilefit_result_cache"] else ", no result cache in this build"),
                V["clang"], V["nvcc"], V["hyperfine"], R["elapsed_s"] / 60,
                " (of which %.1f min waiting for other processes to finish, `--wait-quiet`)"
                % (waited / 60) if waited >= 1 else ""))
    L.append("")
    L.append("Times are hyperfine medians over the runs shown (min–max in brackets); ratios "
             "marked CPU divide user+system CPU time (hyperfine's means) instead, which other "
             "processes on the machine disturb less. RSS is the median peak resident set of the "
             "timed runs (GNU time `%M`), in MiB. tilefit runs with `-j 1`, the Clang parses and "
             "nvcc one after the other, so every ratio compares one core with one core.")
    L.append("")

    comps = [c for c in R.get("comparisons", []) if not c.get("sweep")]
    L.append("### tilefit against Clang's parse and nvcc: time")
    L.append("")
    L.append("| input | archs | units | runs | tilefit | clang parse | nvcc | **tilefit / clang** | "
             "**nvcc / tilefit** | tilefit / clang, CPU | nvcc / tilefit, CPU | host parse |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    pr, nr, rr, pc, nc = [], [], [], [], []
    for c in comps:
        tf, cl, nv = c["tilefit"], c["clang"], c.get("nvcc")
        r1 = ratio(tf["median_s"], cl["median_s"])
        r2 = ratio(nv["median_s"], tf["median_s"]) if nv else None
        r3 = ratio(tf["peak_rss_kb"], cl["peak_rss_kb"])
        c1 = ratio(cpu(tf), cpu(cl))
        c2 = ratio(cpu(nv), cpu(tf)) if nv else None
        c["ratios"] = {"tilefit_over_clang": r1, "nvcc_over_tilefit": r2,
                       "rss_tilefit_over_clang": r3, "cpu_tilefit_over_clang": c1,
                       "cpu_nvcc_over_tilefit": c2}
        pr.append(r1)
        rr.append(r3)
        pc.append(c1)
        if r2 is not None:
            nr.append((r2, len(c["archs"])))
            nc.append((c2, len(c["archs"])))
        L.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["label"], ",".join(a[3:] for a in c["archs"]), c["units"], tf["runs"], fmt_t(tf),
            fmt_t(cl), fmt_t(nv), fmt_r(r1), fmt_r(r2, 1), fmt_r(c1), fmt_r(c2, 1),
            "yes (not in the Clang column)" if c["host_parse"] else "no"))
    g1, g3, gc1 = geomean(pr), geomean(rr), geomean(pc)
    g2a = geomean([r for r, n in nr if n == 1])
    g2b = geomean([r for r, n in nr if n > 1])
    gc2a = geomean([r for r, n in nc if n == 1])
    gc2b = geomean([r for r, n in nc if n > 1])
    L.append("| **overall** (geometric mean of the rows) | | | | | | | **%s** | **%s** (1 arch), **%s** (3) | %s | %s (1 arch), %s (3) | |"
             % (fmt_r(g1), fmt_r(g2a, 1), fmt_r(g2b, 1), fmt_r(gc1), fmt_r(gc2a, 1), fmt_r(gc2b, 1)))
    L.append("")
    L.append("### tilefit against Clang's parse and nvcc: peak memory (MiB)")
    L.append("")
    L.append("| input | archs | tilefit | clang parse | nvcc | **tilefit / clang** |")
    L.append("|---|---|---:|---:|---:|---:|")
    for c in comps:
        L.append("| %s | %s | %s | %s | %s | %s |" % (
            c["label"], ",".join(a[3:] for a in c["archs"]), fmt_rss(c["tilefit"]),
            fmt_rss(c["clang"]), fmt_rss(c.get("nvcc")), fmt_r(c["ratios"]["rss_tilefit_over_clang"])))
    L.append("| **overall** (geometric mean) | | | | | **%s** |" % fmt_r(g3))
    L.append("")

    pch_rows = [c for c in comps if c.get("tilefit_pch")]
    pp, pn, pnc = [], [], []
    if pch_rows:
        L.append("### With the precompiled CUDA runtime headers (`--cache-dir`, parse results "
                 "removed before every run)")
        L.append("")
        L.append("| input | archs | units | tilefit, no cache | tilefit, precompiled headers | clang parse | nvcc | "
                 "**tilefit / clang** | **nvcc / tilefit** | tilefit / clang, CPU | nvcc / tilefit, CPU | RSS (MiB) | RSS / clang |")
        L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for c in pch_rows:
            tp, cl, nv = c["tilefit_pch"], c["clang"], c.get("nvcc")
            r1 = ratio(tp["median_s"], cl["median_s"])
            r2 = ratio(nv["median_s"], tp["median_s"]) if nv else None
            c1 = ratio(cpu(tp), cpu(cl))
            c2 = ratio(cpu(nv), cpu(tp)) if nv else None
            r3 = ratio(tp["peak_rss_kb"], cl["peak_rss_kb"])
            c["ratios"].update({"pch_tilefit_over_clang": r1, "pch_nvcc_over_tilefit": r2,
                                "pch_cpu_tilefit_over_clang": c1, "pch_cpu_nvcc_over_tilefit": c2,
                                "pch_rss_tilefit_over_clang": r3})
            pp.append(r1)
            if r2 is not None and len(c["archs"]) == 1:
                pn.append(r2)
                pnc.append(c2)
            L.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                c["label"], ",".join(a[3:] for a in c["archs"]), c["units"], fmt_t(c["tilefit"]),
                fmt_t(tp), fmt_t(cl), fmt_t(nv), fmt_r(r1), fmt_r(r2, 1), fmt_r(c1), fmt_r(c2, 1),
                fmt_rss(tp), fmt_r(r3)))
        L.append("| **overall** (geometric mean of the rows) | | | | | | | **%s** | **%s** (1 arch) | | | | |"
                 % (fmt_r(geomean(pp)), fmt_r(geomean(pn), 1)))
        L.append("")

    J = R["jobs"]
    sp = ratio(J["j1"]["median_s"], J["j2"]["median_s"])
    L.append("### `-j 1` against `-j 2` (generated project, %d units, sm_90)" % J["units"])
    L.append("")
    L.append("| jobs | time | user+sys CPU | peak RSS (MiB) | speedup |")
    L.append("|---|---:|---:|---:|---:|")
    for name, m, s in (("-j 1", J["j1"], "1.00"), ("-j 2", J["j2"], fmt_r(sp))):
        L.append("| %s | %s | %.1f s | %s | %s |" % (name, fmt_t(m), m["user_s"] + m["system_s"], fmt_rss(m), s))
    L.append("")

    S = R["scale_units"]
    L.append("### Scaling with the number of units (generated, sm_90, `-j 1`)")
    L.append("")
    L.append("| units | runs | time | per unit | peak RSS (MiB) | time vs first row | RSS vs first row |")
    L.append("|---:|---:|---:|---:|---:|---:|---:|")
    for s in S:
        m = s["tilefit"]
        L.append("| %d | %d | %s | %.0f ms | %s | %s | %s |" % (
            s["units"], m["runs"], fmt_t(m), 1000 * m["median_s"] / s["units"], fmt_rss(m),
            fmt_r(ratio(m["median_s"], S[0]["tilefit"]["median_s"])),
            fmt_r(ratio(m["peak_rss_kb"], S[0]["tilefit"]["peak_rss_kb"]))))
    L.append("")

    I = R["scale_instantiations"]
    L.append("### Scaling with the template instantiations in one unit (sm_90)")
    L.append("")
    L.append("| instantiations | tilefit | clang parse | nvcc | tilefit / clang | nvcc / tilefit | "
             "tilefit / clang, CPU | RSS tilefit | RSS clang | RSS tilefit / clang |")
    L.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in I:
        tf, cl, nv = c["tilefit"], c["clang"], c.get("nvcc")
        L.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["instantiations"], fmt_t(tf), fmt_t(cl), fmt_t(nv),
            fmt_r(ratio(tf["median_s"], cl["median_s"])),
            fmt_r(ratio(nv["median_s"], tf["median_s"]) if nv else None, 1),
            fmt_r(ratio(cpu(tf), cpu(cl))),
            fmt_rss(tf), fmt_rss(cl), fmt_r(ratio(tf["peak_rss_kb"], cl["peak_rss_kb"]))))
    L.append("")

    H = R["host_parse"]
    L.append("### The host-side parse (`bench/inputs/host_parse_on.cu` against `_off.cu`)")
    L.append("")
    L.append("| archs | with `__CUDA_ARCH__` (host parse) | without | difference | relative | RSS with | RSS without |")
    L.append("|---|---:|---:|---:|---:|---:|---:|")
    for tag in ("sm_90", "3arch"):
        on, off = H["%s/on" % tag], H["%s/off" % tag]
        d = on["median_s"] - off["median_s"]
        L.append("| %s | %s | %s | %+.0f ms | %+.0f%% | %s | %s |" % (
            "90" if tag == "sm_90" else "80,89,90", fmt_t(on), fmt_t(off), 1000 * d,
            100 * d / off["median_s"], fmt_rss(on), fmt_rss(off)))
    L.append("")
    L.append("For reference, Clang alone on the same unit: device-side parse (sm_90) %s, "
             "host-side parse (`--cuda-host-only`) %s."
             % (fmt_t(H["clang-device"]), fmt_t(H["clang-host"])))
    L.append("")

    W = R.get("warm_cache")
    if W:
        L.append("### The result cache, warm (`--cache-dir`, filled by the warmup run)")
        L.append("")
        L.append("| input | archs | tilefit, no cache | tilefit, warm cache | warm / cold | warm / clang parse | RSS warm |")
        L.append("|---|---|---:|---:|---:|---:|---:|")
        for w in W:
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                w["label"], ",".join(a[3:] for a in w["archs"]), fmt_t(w["cold"]), fmt_t(w["warm"]),
                fmt_r(ratio(w["warm"]["median_s"], w["cold"]["median_s"] if w["cold"] else None), 3),
                fmt_r(ratio(w["warm"]["median_s"], w["clang"]["median_s"] if w["clang"] else None), 3),
                fmt_rss(w["warm"])))
        L.append("")

    P = R.get("lsp")
    if P and "files" in P:
        L.append("### The language server (a file opened, then edited %d times below its "
                 "#include block; `--lsp-debounce-ms=0`, `--arch=sm_90`)" % P["edits"])
        L.append("")
        L.append("Each time runs from the message that sends the text to the diagnostics for that "
                 "version. Cold (`--no-cache --lsp-preambles=false`): every analysis parses "
                 "everything. Precompiled runtime headers (`--cache-dir`, a fresh folder, "
                 "`--lsp-preambles=false`): the open builds them, the edits load them and parse "
                 "the file's own headers. Preamble (the default): the open precompiles the file's "
                 "#include block with the runtime headers, in memory, as clangd does; the edits "
                 "reuse it and parse what follows the block.")
        L.append("")
        L.append("| file | server | open | edit, median (min–max) | edit / cold edit | "
                 "edit / clang parse |")
        L.append("|---|---|---:|---:|---:|---:|")
        for E in P["files"]:
            cl = E.get("clang")
            cold = E["cold"]["median_edit_s"]
            for mode, name in (("cold", "cold"), ("pch", "precompiled runtime headers"),
                               ("preamble", "preamble (default)")):
                m = E[mode]
                L.append("| `%s` | %s | %.3f s | %.3f s (%.3f–%.3f) | %s | %s |" % (
                    E["file"], name, m["open_s"], m["median_edit_s"], m["min_edit_s"],
                    m["max_edit_s"], fmt_r(ratio(m["median_edit_s"], cold)),
                    fmt_r(ratio(m["median_edit_s"], cl["median_s"] if cl else None))))
            E["ratio_preamble_over_cold"] = ratio(E["preamble"]["median_edit_s"], cold)
        L.append("")

    # Targets.
    one_arch = [c for c in comps if len(c["archs"]) == 1]
    worst = max(comps, key=lambda c: c["ratios"]["tilefit_over_clang"] or 0)
    no_host = [c for c in comps if not c["host_parse"]]
    worst_nh = max(no_host, key=lambda c: c["ratios"]["tilefit_over_clang"] or 0) if no_host else None
    nv1 = [c for c in one_arch if c["ratios"]["nvcc_over_tilefit"] is not None]
    worst_nv = min(nv1, key=lambda c: c["ratios"]["nvcc_over_tilefit"]) if nv1 else None
    worst_rss = max(comps, key=lambda c: c["ratios"]["rss_tilefit_over_clang"] or 0)
    L.append("### Targets")
    L.append("")
    L.append("| target | measured | met |")
    L.append("|---|---|---|")
    L.append("| tilefit / clang parse ≤ %.2f per unit and architecture, no cache | worst %.2f (%s, %s); "
             "worst without a host parse %s; overall %.2f (CPU time: %.2f) | %s |" % (
                 TARGET_PARSE_RATIO, worst["ratios"]["tilefit_over_clang"], worst["label"],
                 ",".join(worst["archs"]),
                 "%.2f (%s)" % (worst_nh["ratios"]["tilefit_over_clang"], worst_nh["label"]) if worst_nh else "—",
                 g1, gc1, mark(worst["ratios"]["tilefit_over_clang"] <= TARGET_PARSE_RATIO)))
    if pch_rows:
        proj = [c for c in pch_rows if c["label"] == "example project (-p)"
                or c["label"].startswith("generated project")]
        worst_p = max(proj or pch_rows, key=lambda c: c["ratios"]["pch_tilefit_over_clang"] or 0)
        L.append("| tilefit / clang parse ≤ %.1f with the precompiled CUDA headers, example and "
                 "generated projects | %s; overall %s | %s |" % (
                     TARGET_PARSE_RATIO_PCH,
                     "; ".join("%s %s: %.2f (CPU %.2f)" % (c["label"], ",".join(a[3:] for a in c["archs"]),
                                                          c["ratios"]["pch_tilefit_over_clang"],
                                                          c["ratios"]["pch_cpu_tilefit_over_clang"])
                               for c in proj),
                     fmt_r(geomean(pp)),
                     mark(worst_p["ratios"]["pch_tilefit_over_clang"] <= TARGET_PARSE_RATIO_PCH)))
        pn1 = [c for c in pch_rows if len(c["archs"]) == 1 and c["ratios"]["pch_nvcc_over_tilefit"]]
        if pn1:
            wn = min(pn1, key=lambda c: c["ratios"]["pch_nvcc_over_tilefit"])
            L.append("| nvcc / tilefit ≥ %.0f for one architecture, precompiled CUDA headers | worst %.1f (%s); "
                     "overall %s (CPU time: %s) | %s |" % (
                         TARGET_NVCC_RATIO, wn["ratios"]["pch_nvcc_over_tilefit"], wn["label"],
                         fmt_r(geomean(pn), 1), fmt_r(geomean(pnc), 1),
                         mark(wn["ratios"]["pch_nvcc_over_tilefit"] >= TARGET_NVCC_RATIO)))
    else:
        L.append("| tilefit / clang parse ≤ %.1f with a precompiled header of the CUDA headers | "
                 "not measured: this tilefit has no cache folder | **no** |" % TARGET_PARSE_RATIO_PCH)
    if worst_nv:
        L.append("| nvcc / tilefit ≥ %.0f for one architecture | worst %.1f (%s); overall %.1f (CPU time: %.1f) | %s |" % (
            TARGET_NVCC_RATIO, worst_nv["ratios"]["nvcc_over_tilefit"], worst_nv["label"], g2a, gc2a,
            mark(worst_nv["ratios"]["nvcc_over_tilefit"] >= TARGET_NVCC_RATIO)))
    L.append("| `-j 2` ≥ %.1f× faster than `-j 1` | %.2f× (%d units) | %s |" % (
        TARGET_J2_SPEEDUP, sp, J["units"], mark(sp >= TARGET_J2_SPEEDUP)))
    single = [c for c in comps if c["units"] == 1]
    worst_rss1 = max(single, key=lambda c: c["ratios"]["rss_tilefit_over_clang"] or 0) if single else None
    L.append("| peak memory ≤ %.1f× Clang's parse of the same unit | worst %.2f (%s, %s); worst single unit %s; overall %.2f | %s |" % (
        TARGET_RSS_RATIO, worst_rss["ratios"]["rss_tilefit_over_clang"], worst_rss["label"],
        ",".join(worst_rss["archs"]),
        "%.2f (%s)" % (worst_rss1["ratios"]["rss_tilefit_over_clang"], worst_rss1["label"]) if worst_rss1 else "—",
        g3, mark(worst_rss["ratios"]["rss_tilefit_over_clang"] <= TARGET_RSS_RATIO)))
    # A whole project's memory: the largest unit-count run against Clang's parse of one of its
    # units (the generated project's Clang column is the largest single parse).
    S = R.get("scale_units") or []
    gen = [c for c in comps if c["label"].startswith("generated project, all")]
    if S and gen and gen[0]["clang"].get("peak_rss_kb"):
        big = max(S, key=lambda s: s["units"])
        r = ratio(big["tilefit"]["peak_rss_kb"], gen[0]["clang"]["peak_rss_kb"])
        L.append("| peak memory of a %d-unit run ≤ %.1f× one unit's Clang parse | %.2f (%s MiB "
                 "against %s MiB) | %s |" % (big["units"], TARGET_RSS_RATIO, r,
                                             fmt_rss(big["tilefit"]), fmt_rss(gen[0]["clang"]),
                                             mark(r <= TARGET_RSS_RATIO)))
    C = R.get("cache_after_example")
    if C:
        # One per architecture on the device side, one for the host side (its parse is the
        # same for every architecture).
        L.append("| one precompiled runtime header per architecture and side (example project, "
                 "%d architectures, from an empty cache) | %d runtime, %d shared-include; "
                 "folder %.1f MB | %s |" % (C["archs"], C["runtime_pch"], C["prefix_pch"],
                                            C["bytes"] / 1e6,
                                            mark(C["runtime_pch"] <= C["archs"] + 1)))
    L.append("")

    noisy = [(k, m["other_load_cores"], m.get("contended")) for k, m in R["measurements"].items()
             if (m.get("other_load_cores") or 0) >= 0.15]
    loads = [m["other_load_cores"] for m in R["measurements"].values()
             if m.get("other_load_cores") is not None]
    failed = [k for k, m in R["measurements"].items() if m.get("failed")]
    if failed:
        L.append("**Failed commands** (exit status other than 0, or 1 for tilefit's findings): "
                 + ", ".join("`%s`" % k for k in failed))
        L.append("")
    if loads:
        L.append("Other processes on the machine used %.2f cores on average during the "
                 "measurements (at most %.2f)." % (statistics.mean(loads), max(loads)))
        L.append("")
    if noisy:
        L.append("They used 0.15 cores or more during: " + ", ".join(
            "`%s` (%.2f%s)" % (k, v, ", **on its cores**" if c else "") for k, v, c in noisy)
            + ". Those figures are less reliable, above all where the others needed more than "
            "the cores the measured command left idle (**on its cores**).")
    else:
        L.append("No other process used 0.15 cores or more during any measurement.")
    L.append("")
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser(description="tilefit's benchmarks (see bench/README.md)")
    ap.add_argument("--tilefit", default=os.path.join(ROOT, "build", "bin", "tilefit"))
    ap.add_argument("--quick", action="store_true", help="a smoke run: small inputs, one run each")
    ap.add_argument("--out", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "tilefit-bench"))
    ap.add_argument("--clang", default="clang++-19")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--wait-quiet", type=int, default=0, metavar="S",
                    help="before each measurement wait (at most S s) until other processes "
                         "leave the CPUs idle; the default 0 does not wait")
    ap.add_argument("--cutlass", default="", metavar="DIR",
                    help="a CUTLASS checkout: its CuTe sgemm_sm80 tutorial is measured too")
    ap.add_argument("--keep-work", action="store_true", help="keep the scaling projects")
    ap.add_argument("--render", metavar="RESULTS_JSON",
                    help="only print the summary of an earlier run's results.json")
    args = ap.parse_args()
    if args.render:
        with open(args.render) as f:
            print(render(json.load(f)))
        return 0
    if not os.access(args.tilefit, os.X_OK):
        sys.exit("no tilefit at %s (build it, or pass --tilefit PATH)" % args.tilefit)
    for tool in (args.clang, args.nvcc, "hyperfine", "/usr/bin/time", "cmake"):
        if not shutil.which(tool):
            sys.exit("%s not found" % tool)
    return Bench(args, QUICK if args.quick else FULL).run()


if __name__ == "__main__":
    sys.exit(main())
