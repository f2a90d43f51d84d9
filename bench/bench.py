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
from machine import (cpu_busy_seconds, cpu_model, fill_cache, first_line, last_line, loadavg,
                     log, mem_gib, other_cpu, sha256)
from summary import render

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
EXAMPLE_SRC = os.path.join(ROOT, "compile_commands_example", "src")
HEAVY = os.path.join(BENCH, "inputs", "heavy_cub.cu")


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
        started = time.time()
        self.record_setup()
        ex_build = self.run_example()
        self.results["cache_after_example"] = self.cache_footprint(ex_build)
        self.run_heavy()
        self.run_cute()
        gen, sample = self.run_generated()
        self.run_instantiations()
        self.run_host_parse()
        if self.has_cache:
            self.run_lsp(ex_build)
            self.run_warm_cache(ex_build, gen, sample)
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

    def record_setup(self):
        """The machine, the tools' versions, the mode and the configuration."""
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
        self.results["config"] = self.cfg
        log("tilefit %s; %s; machine: %d cores" % (self.tilefit, self.results["versions"]["tilefit"],
                                                    os.cpu_count()))

    def run_example(self):
        """(a) the example project: each unit for sm_90, then the whole database for 3 archs.
        Returns the configured project's build folder."""
        cfg = self.cfg
        ex_build = self.configure_example()
        for u in EXAMPLE_UNITS:
            f = os.path.join(EXAMPLE_SRC, u)
            self.compare("example/%s/sm_90" % u, "example %s" % u, ONE_ARCH, 1,
                         self.tilefit_argv(ONE_ARCH, [f], EXAMPLE_FLAGS), ROOT, cfg["unit"],
                         [self.nvcc_argv(f, EXAMPLE_FLAGS, ONE_ARCH)], mentions_cuda_arch(f))
        self.compare("example/project/3arch", "example project (-p)", THREE_ARCHS,
                     len(EXAMPLE_UNITS), self.tilefit_argv(THREE_ARCHS, db=ex_build), ex_build,
                     cfg["project"],
                     [self.nvcc_argv(os.path.join(EXAMPLE_SRC, u), abs_example_flags(), THREE_ARCHS)
                      for u in EXAMPLE_UNITS],
                     any(mentions_cuda_arch(os.path.join(EXAMPLE_SRC, u)) for u in EXAMPLE_UNITS))
        return ex_build

    def run_heavy(self):
        """(b) the heavy unit."""
        for archs, tag in ((ONE_ARCH, "sm_90"), (THREE_ARCHS, "3arch")):
            self.compare("heavy/%s" % tag, "heavy_cub.cu (CUB, cg, pipeline)", archs, 1,
                         self.tilefit_argv(archs, [HEAVY], ["-std=c++17"]), ROOT, self.cfg["heavy"],
                         [self.nvcc_argv(HEAVY, ["-std=c++17"], archs)], False)

    def run_cute(self):
        """(b2) a CuTe-heavy unit (issue 19.6): CuTe's sgemm_sm80 tutorial with the flags
        CUTLASS's CMake gives nvcc, where a CUTLASS checkout is given (--cutlass or
        TILEFIT_CUTLASS_DIR); nothing is downloaded."""
        cutlass = self.args.cutlass or os.environ.get("TILEFIT_CUTLASS_DIR", "")
        cute = os.path.join(cutlass, "examples", "cute", "tutorial", "sgemm_sm80.cu")
        if cutlass and os.path.exists(cute):
            cute_flags = ["-std=c++17", "--expt-relaxed-constexpr",
                          "-DCUTLASS_ENABLE_TENSOR_CORE_MMA=1",
                          "-I" + os.path.join(cutlass, "include"),
                          "-I" + os.path.join(cutlass, "tools", "util", "include"),
                          "-I" + os.path.join(cutlass, "examples", "common")]
            self.compare("cute/sm_80", "CuTe sgemm_sm80 tutorial", ["sm_80"], 1,
                         self.tilefit_argv(["sm_80"], [cute], cute_flags), ROOT, self.cfg["heavy"],
                         [self.nvcc_argv(cute, cute_flags, ["sm_80"])], False)
        else:
            log("no CUTLASS checkout (--cutlass DIR or TILEFIT_CUTLASS_DIR): the CuTe unit is "
                "not measured")

    def run_generated(self):
        """(c) the generated project: a sample of its units with all three tools, for one and
        three architectures; the whole project for tilefit and Clang; -j 1 against -j 2; the
        unit-count sweep. Returns the project's folder and the sample's files."""
        cfg = self.cfg
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
        self.run_scale_units(n, k, whole["tilefit"])
        return gen, sample

    def run_scale_units(self, n, k, whole):
        """Scaling with the unit count (tilefit -j 1, sm_90: one core, so that another process
        on the other core disturbs it least); `whole`: the measurement of the n-unit project."""
        scale = []
        for m in self.cfg["scale_units"]:
            if m == n:
                meas = whole
            else:
                d = self.generate(m, "gen-%d" % m, k)
                meas = self.measure("scale/units%d/tilefit" % m,
                                    self.tilefit_argv(ONE_ARCH, db=os.path.join(d, "build-sm90")),
                                    os.path.join(d, "build-sm90"), self.cfg["scale"], "tilefit")
                if not self.args.keep_work:
                    shutil.rmtree(d)
            scale.append({"units": m, "tilefit": meas})
        self.results["scale_units"] = scale

    def run_instantiations(self):
        """Scaling with the instantiations in one unit."""
        inst = []
        for kk in self.cfg["inst_counts"]:
            d = self.generate(1, "inst-%d" % kk, kk)
            f = os.path.join(d, "src", "unit_0000.cu")
            db = os.path.join(d, "build-sm90")
            row = self.compare("instantiations/%d" % kk, "1 unit, %d instantiations" % kk,
                               ONE_ARCH, 1, self.tilefit_argv(ONE_ARCH, db=db), db, self.cfg["inst"],
                               [self.nvcc_argv(f, ["-DGEN_PROJECT=1", "-I" + os.path.join(d, "include"),
                                                   "-std=c++17"], ONE_ARCH)], False)
            row["instantiations"] = kk
            inst.append(row)
        self.results["scale_instantiations"] = inst
        # (kept in "comparisons" too, but reported in their own table)
        for row in inst:
            row["sweep"] = True

    def run_host_parse(self):
        """The host-side parse: the same unit with and without __CUDA_ARCH__ in its own file."""
        cfg = self.cfg
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

    def run_lsp(self, ex_build):
        """The language server: a unit opened, then edited again and again (below its #include
        block). Three servers: cold (every analysis parses everything), the precompiled CUDA
        runtime headers of the cache folder (built while the file is opened, in a fresh
        folder), and the default, the file's own preamble (its #include block and the runtime
        headers, precompiled in memory when the file is opened, reused by every edit)."""
        edits = self.cfg["lsp_edits"]
        heavy_db = os.path.join(self.work, "lsp-heavy")
        os.makedirs(heavy_db, exist_ok=True)
        with open(os.path.join(heavy_db, "compile_commands.json"), "w") as f:
            json.dump([{"directory": ROOT, "file": HEAVY,
                        "arguments": ["clang++", "-x", "cuda", "--cuda-gpu-arch=sm_90",
                                      "-std=c++17", "-c", HEAVY]}], f)
        sessions = [("gemm.cu", os.path.join(EXAMPLE_SRC, "gemm.cu"), ex_build,
                     "example gemm.cu"),
                    ("heavy_cub.cu", HEAVY, heavy_db, "heavy_cub.cu (CUB, cg, pipeline)")]
        fresh = os.path.join(self.work, "lsp-cache")
        lsp = {"edits": edits, "files": []}
        for name, f, db, label in sessions:
            entry = {"file": os.path.relpath(f, ROOT)}
            base = ["--arch=sm_90", "--compile-commands-dir=" + db]
            # Each edit appends a comment (no line of code changes: the default server's
            # memo answers it), and in the last session a host function (parsed again).
            for mode, extra, edit in (
                    ("cold", ["--no-cache", "--lsp-preambles=false"], "comment"),
                    ("pch", ["--cache-dir=" + fresh, "--lsp-preambles=false"], "comment"),
                    ("preamble", ["--no-cache"], "comment"),
                    ("preamble_code", ["--no-cache"], "code")):
                if os.path.isdir(fresh):
                    shutil.rmtree(fresh)
                log("lsp/%s/%s: open, %d edits" % (name, mode, edits))
                entry[mode] = lsp_timing.time_session(self.tilefit, base + extra, f, ROOT, edits,
                                                      edit=edit)
                log("  open %.3f s, edits median %.3f s" % (entry[mode]["open_s"],
                                                           entry[mode]["median_edit_s"]))
            row = [c for c in self.results["comparisons"]
                   if c["label"] == label and len(c["archs"]) == 1]
            entry["clang"] = row[0]["clang"] if row else None
            lsp["files"].append(entry)
        self.results["lsp"] = lsp

    def run_warm_cache(self, ex_build, gen, sample):
        """The result cache, warm: the warmup run fills a private cache folder, the timed runs
        read it; then the same over a cache folder full of other units' entries."""
        if os.path.isdir(self.cache_dir):
            shutil.rmtree(self.cache_dir)
        n = self.cfg["gen_units"]
        warm = []
        rows = {c["label"] + "|" + ",".join(c["archs"]): c for c in self.results["comparisons"]}
        cases = [("example project (-p)", THREE_ARCHS, self.tilefit_argv(THREE_ARCHS, db=ex_build, cache=True), ex_build),
                 ("heavy_cub.cu (CUB, cg, pipeline)", ONE_ARCH,
                  self.tilefit_argv(ONE_ARCH, [HEAVY], ["-std=c++17"], cache=True), ROOT),
                 ("generated, %d of %d units" % (len(sample), n), THREE_ARCHS,
                  self.tilefit_argv(THREE_ARCHS, sample, db=os.path.join(gen, "build-3arch"), cache=True),
                  os.path.join(gen, "build-3arch"))]
        for label, archs, argv, cwd in cases:
            slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
            m = self.measure_warm("warm-cache/%s/%s" % (slug, ",".join(archs)), argv, cwd)
            warm.append(self.warm_row(label, archs, m, rows.get(label + "|" + ",".join(archs))))
        # The same rerun over a cache folder that already holds 100,000 entries of other
        # units (what months of real projects leave): a hit must cost the same.
        big = os.path.join(self.work, "cache-100k")
        entries = 2000 if self.args.quick else 100000
        fill_cache(big, entries)
        argv = [("--cache-dir=" + big) if a.startswith("--cache-dir=") else a
                for a in self.tilefit_argv(ONE_ARCH, [HEAVY], ["-std=c++17"], cache=True)]
        label = "heavy_cub.cu, cache of %d other entries" % entries
        m = self.measure_warm("warm-cache/heavy-cub-100k/" + ",".join(ONE_ARCH), argv, ROOT)
        warm.append(self.warm_row(label, ONE_ARCH, m,
                                  rows.get("heavy_cub.cu (CUB, cg, pipeline)|" + ",".join(ONE_ARCH))))
        shutil.rmtree(big, ignore_errors=True)
        self.results["warm_cache"] = warm

    def measure_warm(self, key, argv, cwd):
        """A warm-cache measurement: the one-unit repetitions, with at least one warmup run."""
        w, r = self.cfg["unit"]
        return self.measure(key, argv, cwd, (max(1, w), r), "tilefit")

    @staticmethod
    def warm_row(label, archs, m, base):
        """A row of the warm-cache table: `m` against `base`, the comparison of the same input
        without cache (None when there is none)."""
        return {"label": label, "archs": archs, "warm": m,
                "cold": base["tilefit"] if base else None,
                "clang": base["clang"] if base else None}


# -- helpers ------------------------------------------------------------------------------------

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
