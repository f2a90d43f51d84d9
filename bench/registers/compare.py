#!/usr/bin/env python3
"""Compare tilefit-registers diagnostics with ptxas's register/spill figures.

Usage:
  compare.py TILEFIT [--jobs JOBS] [--nvcc-cache FILE] [--only PROJECT[,..]]
             [--all-kernels] [--full-messages] [--json-out FILE] [--no-tilefit-cache]

For each job (project, arch, source file, flags) of the jobs file it
  1. runs `nvcc -arch=ARCH FLAGS -c -o /dev/null -Xptxas -v FILE` (cached in a
     JSON file keyed by nvcc version, arch, flags, path and the file's content)
     and parses, per entry function: mangled name, registers, spill stores,
     spill loads, stack frame, smem;
  2. runs `TILEFIT FILE --format=json -j 1 --header-filter=.* -- -arch=ARCH FLAGS`
     (header findings shown: CUTLASS kernels live in headers) and collects
     every tilefit-registers diagnostic (mapped to the kernel's mangled name
     through the report's `kernels` list);
  3. prints a table per diagnostic with ptxas's figures and a verdict:
       OK      a warning on a kernel ptxas spills (spill stores > 0)
       FALSE   a warning on a kernel with 0 bytes spill stores
       NOMATCH a warning whose kernel ptxas did not report (name mismatch)
     Diagnostics of other severities (remarks, notes) are listed separately,
     and so are kernels ptxas spills on that have no warning (MISSED).

Jobs file: one job per line, `#` comments, shell-style quoting:
  PROJECT  ARCH  FILE  [FLAGS...]
  llm.c    sm_80 $SRC/llm.c/dev/cuda/adamw.cu -O3 --use_fast_math -std=c++17
$VARS are expanded from the environment; SRC defaults to /tmp/spills/src.
nvcc and tilefit run in the source file's folder.

tilefit's own result cache is put in a folder per tilefit binary (keyed by the
binary's SHA-256) under ~/.cache/tilefit-spills, so a rebuilt binary never reuses
facts from an older one while reruns of the same binary stay fast.
"""
import argparse
import collections
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = "tilefit-registers"


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def parse_jobs(path):
    os.environ.setdefault("SRC", "/tmp/spills/src")
    jobs = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            parts = shlex.split(os.path.expandvars(s), comments=True)
            if len(parts) < 3:
                sys.exit(f"{path}:{lineno}: need PROJECT ARCH FILE [FLAGS...]")
            project, arch, src = parts[0], parts[1], parts[2]
            jobs.append({"project": project, "arch": arch,
                         "file": os.path.abspath(src), "flags": parts[3:],
                         "line": lineno})
    return jobs


# --------------------------------------------------------------------- nvcc

NVCC_VERSION = None


def nvcc_version(nvcc):
    global NVCC_VERSION
    if NVCC_VERSION is None:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        NVCC_VERSION = out.strip().splitlines()[-1] if out.strip() else "?"
    return NVCC_VERSION


RE_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
RE_PROPS = re.compile(r"Function properties for (\S+)")
RE_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
RE_USED = re.compile(r"Used (\d+) registers")
RE_SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas(text):
    """Entry functions -> figures. Non-entry 'Function properties' blocks
    (noinline device functions) are kept under 'functions'."""
    entries = collections.OrderedDict()
    functions = {}
    cur_entry = None     # entry being compiled
    props_for = None     # name of the last 'Function properties for'
    for line in text.splitlines():
        m = RE_ENTRY.search(line)
        if m:
            cur_entry = m.group(1)
            entries[cur_entry] = {"arch": m.group(2), "regs": None, "spill_stores": None,
                                  "spill_loads": None, "stack": None, "smem": 0}
            props_for = None
            continue
        m = RE_PROPS.search(line)
        if m:
            props_for = m.group(1)
            continue
        m = RE_FRAME.search(line)
        if m and props_for is not None:
            fig = {"stack": int(m.group(1)), "spill_stores": int(m.group(2)),
                   "spill_loads": int(m.group(3))}
            if props_for == cur_entry:
                entries[cur_entry].update(fig)
            else:
                functions[props_for] = fig
            continue
        m = RE_USED.search(line)
        if m and cur_entry is not None:
            entries[cur_entry]["regs"] = int(m.group(1))
            ms = RE_SMEM.search(line)
            entries[cur_entry]["smem"] = int(ms.group(1)) if ms else 0
            cur_entry = None
    return entries, functions


def run_nvcc(job, nvcc, cache, timeout):
    key_src = json.dumps([nvcc_version(nvcc), job["arch"], job["file"], job["flags"],
                          sha256_file(job["file"])])
    key = hashlib.sha256(key_src.encode()).hexdigest()
    if key in cache:
        return cache[key], True
    cmd = [nvcc, f"-arch={job['arch']}"] + job["flags"] + \
        ["-c", "-o", "/dev/null", "-Xptxas", "-v", job["file"]]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd=os.path.dirname(job["file"]))
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, out = "timeout", ""
    entries, functions = parse_ptxas(out)
    res = {"cmd": cmd, "rc": rc, "seconds": round(time.time() - t0, 1),
           "entries": entries, "functions": functions,
           "errors": "" if rc == 0 else "\n".join(
               l for l in out.splitlines() if "ptxas info" not in l and
               "bytes stack frame" not in l)[-1500:]}
    cache[key] = res
    return res, False


# ------------------------------------------------------------------ tilefit

def run_tilefit(job, tilefit, cache_dir, timeout):
    # --header-filter=.*: findings located in headers outside the unit's folder
    # (CUTLASS kernels in include/cutlass/...) are hidden by default.
    cmd = [tilefit, job["file"], "--format=json", "-j", "1", "--quiet", "--header-filter=.*"]
    cmd += [f"--cache-dir={cache_dir}"] if cache_dir else ["--no-cache"]
    cmd += ["--", f"-arch={job['arch']}"] + job["flags"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd=os.path.dirname(job["file"]))
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return {"cmd": cmd, "rc": "timeout", "error": "timeout", "kernels": [],
                "diagnostics": [], "units": []}
    res = {"cmd": cmd, "rc": rc, "seconds": round(time.time() - t0, 1),
           "stderr": err[-1500:]}
    try:
        rep = json.loads(out)
    except ValueError:
        res.update(error="no JSON: " + (err.strip().splitlines() or ["?"])[-1],
                   kernels=[], diagnostics=[], units=[])
        return res
    res["kernels"] = rep.get("kernels", [])
    res["diagnostics"] = [d for d in rep.get("diagnostics", []) if d.get("check") == CHECK]
    res["units"] = [{"arch": u.get("arch"), "status": u.get("status")}
                    for u in rep.get("translation_units", [])]
    res["error"] = None
    return res


# ------------------------------------------------------------------ matching

_demangle_cache = {}


def demangle_all(names):
    todo = [n for n in names if n not in _demangle_cache]
    if todo:
        try:
            p = subprocess.run(["c++filt"], input="\n".join(todo) + "\n",
                               capture_output=True, text=True)
            for n, d in zip(todo, p.stdout.splitlines()):
                _demangle_cache[n] = d
        except OSError:
            for n in todo:
                _demangle_cache[n] = n


def norm_name(s):
    """Demangled 'void f<int>(int*, ...)' or tilefit's 'f<int>' -> comparable key."""
    s = re.sub(r"^void\s+", "", s)
    depth = 0
    for i, c in enumerate(s):  # drop the parameter list
        if c in "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            s = s[:i]
            break
    s = re.sub(r"\(anonymous namespace\)::", "", s)
    return re.sub(r"\s+", "", s)


def short_message(d):
    fig = d.get("figures") or {}
    b, r, lim = (fig.get("array_bytes_per_thread"), fig.get("array_registers_per_thread"),
                 fig.get("registers_per_thread_limit"))
    if b is not None and r is not None:
        s = f"{b}B={r}r>{lim}" if lim is not None else f"{b}B={r}r"
    else:
        s = d.get("message", "")[:60]
    msg = d.get("message", "")
    m = re.search(r"registers per thread (__launch_bounds__\([^)]*\)|-maxrregcount[= ]?\d*)", msg)
    if m:
        s += " " + m.group(1).replace("__launch_bounds__", "LB")
    elif "spills" not in msg:
        s += " (" + msg[:50] + ")"
    return s


def kernel_short(name, width):
    if width and len(name) > width:
        return name[:width - 3] + "..."
    return name


# ---------------------------------------------------------------------- main

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tilefit")
    ap.add_argument("--jobs", default=os.path.join(HERE, "jobs.txt"))
    ap.add_argument("--nvcc-cache", default=os.path.join(HERE, "nvcc_cache.json"))
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--only", help="comma-separated projects")
    ap.add_argument("--match", help="regex on the source path")
    ap.add_argument("--all-kernels", action="store_true",
                    help="also list every measured kernel with tilefit's array figures")
    ap.add_argument("--full-messages", action="store_true")
    ap.add_argument("--name-width", type=int, default=70)
    ap.add_argument("--json-out", help="write every result as JSON here")
    ap.add_argument("--no-tilefit-cache", action="store_true")
    ap.add_argument("--nvcc-timeout", type=int, default=1800)
    ap.add_argument("--tilefit-timeout", type=int, default=900)
    return ap.parse_args()


class Collected:
    """What the jobs found: warnings (rows), other diagnostics (remarks), kernels ptxas spills
    on without a warning (missed), failures, every measured kernel (allk), and per project
    counters (stats)."""

    def __init__(self):
        self.rows, self.remarks, self.missed, self.failures, self.allk = [], [], [], [], []
        self.stats = collections.OrderedDict()


def main():
    a = parse_args()
    tilefit = os.path.abspath(a.tilefit)
    tf_hash = sha256_file(tilefit)
    tf_cache = None if a.no_tilefit_cache else os.path.join(
        os.path.expanduser("~/.cache/tilefit-spills"), tf_hash[:16])
    jobs = parse_jobs(a.jobs)
    if a.only:
        keep = set(a.only.split(","))
        jobs = [j for j in jobs if j["project"] in keep]
    if a.match:
        jobs = [j for j in jobs if re.search(a.match, j["file"])]

    cache = {}
    if os.path.exists(a.nvcc_cache):
        with open(a.nvcc_cache) as f:
            cache = json.load(f)

    def save_cache():
        tmp = a.nvcc_cache + ".tmp"
        with open(tmp, "w") as f:
            json.dump(cache, f, indent=0, sort_keys=True)
        os.replace(tmp, a.nvcc_cache)

    c = Collected()
    for i, job in enumerate(jobs, 1):
        print(f"[{i}/{len(jobs)}] {job['arch']} {os.path.relpath(job['file'], os.environ['SRC'])}",
              file=sys.stderr, flush=True)
        compare_job(job, a, tilefit, tf_cache, cache, save_cache, c)

    print("\n".join(report(a, tilefit, tf_hash, c)))
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump({"tilefit": tilefit, "tilefit_sha256": tf_hash, "warnings": c.rows,
                       "other": c.remarks, "missed": c.missed, "kernels": c.allk,
                       "failures": [[j, w, [str(x) for x in m]] for j, w, m in c.failures],
                       "stats": c.stats}, f, indent=1)


def compare_job(job, a, tilefit, tf_cache, cache, save_cache, c):
    """One job: nvcc and tilefit on its file, tilefit's kernels matched to ptxas's entries,
    the diagnostics and the spilling kernels collected into `c`."""
    rel = os.path.relpath(job["file"], os.environ["SRC"])
    st = c.stats.setdefault(job["project"], collections.Counter())
    st["jobs"] += 1
    nv, cached = run_nvcc(job, a.nvcc, cache, a.nvcc_timeout)
    if not cached:
        save_cache()
    if nv["rc"] != 0:
        st["nvcc_failed"] += 1
        c.failures.append((job, "nvcc", nv["errors"].strip().splitlines()[-1:] or [nv["rc"]]))
        return
    tf = run_tilefit(job, tilefit, tf_cache, a.tilefit_timeout)
    if tf.get("error"):
        st["tilefit_failed"] += 1
        c.failures.append((job, "tilefit", [tf["error"]]))
    bad_units = [u for u in tf["units"] if u["status"] != "ok"]
    if bad_units:
        st["tilefit_unit_not_ok"] += 1
        c.failures.append((job, "tilefit", [f"unit status {u['status']}" for u in bad_units]))
    entries = nv["entries"]
    st["ptxas_kernels"] += len(entries)
    st["ptxas_spilling"] += sum(1 for e in entries.values() if (e["spill_stores"] or 0) > 0)

    kmap, tf_to_ptx = match_kernels(entries, tf["kernels"])
    st["matched_kernels"] += len(tf_to_ptx)
    warned = collect_diagnostics(job, rel, tf["diagnostics"], kmap, entries, st, c)
    collect_kernels(job, rel, entries, tf_to_ptx, warned, st, c)
    st["ptxas_unmatched"] += len(entries) - len(tf_to_ptx)


def match_kernels(entries, kernels):
    """tilefit's kernels -> ptxas's entries (by mangled name, else by the one entry with the
    same demangled name). Returns the kernels by (name, arch) and (name, file, line, arch),
    each with its entry under "_ptx", and the matched kernel of each matched entry."""
    demangle_all(list(entries))
    by_norm = collections.defaultdict(list)
    for mg in entries:
        by_norm[norm_name(_demangle_cache.get(mg, mg))].append(mg)
    kmap = {}  # (name, file, line, arch) -> kernel record
    tf_to_ptx = {}
    for k in kernels:
        mg = k.get("mangled")
        hit = mg if mg in entries else None
        if hit is None:
            cands = by_norm.get(norm_name(k.get("name", "")), [])
            if len(cands) == 1:
                hit = cands[0]
        k["_ptx"] = hit
        kmap[(k.get("name"), k.get("arch"))] = k
        kmap[(k.get("name"), k.get("file"), k.get("line"), k.get("arch"))] = k
        if hit:
            tf_to_ptx[hit] = k
    return kmap, tf_to_ptx


def collect_diagnostics(job, rel, diagnostics, kmap, entries, st, c):
    """Each diagnostic with ptxas's figures of its kernel and a verdict (warnings) into
    c.rows, the others into c.remarks. Returns the mangled names of the warned kernels."""
    warned = set()
    for d in diagnostics:
        k = kmap.get((d.get("kernel"), d.get("file"), d.get("line"), d.get("arch"))) or \
            kmap.get((d.get("kernel"), d.get("arch")))
        mg = k.get("_ptx") if k else None
        e = entries.get(mg) if mg else None
        sev = d.get("severity", "?")
        row = {"project": job["project"], "file": rel, "arch": job["arch"],
               "kernel": d.get("kernel"), "mangled": mg or (k or {}).get("mangled"),
               "severity": sev, "short": short_message(d), "message": d.get("message"),
               "figures": d.get("figures"),
               "regs": e["regs"] if e else None,
               "spill_stores": e["spill_stores"] if e else None,
               "spill_loads": e["spill_loads"] if e else None,
               "stack": e["stack"] if e else None}
        if sev == "warning":
            if e is None:
                row["verdict"] = "NOMATCH"
            elif (e["spill_stores"] or 0) > 0:
                row["verdict"] = "OK"
            else:
                row["verdict"] = "FALSE"
            st["warn_" + row["verdict"]] += 1
            c.rows.append(row)
            if mg:
                warned.add(mg)
        else:
            row["verdict"] = "-"
            st["other_" + sev] += 1
            c.remarks.append(row)
    return warned


def collect_kernels(job, rel, entries, tf_to_ptx, warned, st, c):
    """Every ptxas entry into c.allk; those that spill without a warning into c.missed."""
    for mg, e in entries.items():
        k = tf_to_ptx.get(mg)
        reg = (k or {}).get("registers") or {}
        if (e["spill_stores"] or 0) > 0 and mg not in warned:
            st["missed"] += 1
            c.missed.append({"project": job["project"], "file": rel, "arch": job["arch"],
                             "kernel": k["name"] if k else _demangle_cache.get(mg, mg),
                             "mangled": mg, "regs": e["regs"],
                             "spill_stores": e["spill_stores"], "stack": e["stack"],
                             "tf_bytes": reg.get("bytes_per_thread"),
                             "tf_limit": reg.get("registers_per_thread_limit"),
                             "in_tilefit": k is not None})
        c.allk.append({"project": job["project"], "file": rel, "arch": job["arch"],
                       "kernel": k["name"] if k else _demangle_cache.get(mg, mg),
                       "mangled": mg, "in_tilefit": k is not None,
                       "tf_bytes": reg.get("bytes_per_thread"),
                       "tf_regs": reg.get("registers_per_thread"),
                       "tf_limit": reg.get("registers_per_thread_limit"),
                       "regs": e["regs"], "spill_stores": e["spill_stores"],
                       "spill_loads": e["spill_loads"], "stack": e["stack"],
                       "smem": e["smem"]})


# ------------------------------------------------------------ output

def report(a, tilefit, tf_hash, c):
    """The tables, as lines."""
    out = []
    P = out.append
    W = a.name_width
    P(f"tilefit: {tilefit} (sha256 {tf_hash[:12]})")
    P(f"nvcc: {nvcc_version(a.nvcc)}    jobs: {a.jobs}")
    P("")
    report_diagnostics(P, a, c)
    P(f"== MISSED: ptxas spill stores > 0, no {CHECK} warning ({len(c.missed)}) ==")
    if c.missed:
        P(f"{'kernel':{W}} {'arch':7} {'tf arrays':>16} {'regs':>4} {'spillST':>7} {'stack':>6}  file")
    for r in c.missed:
        tfa = (f"{r['tf_bytes']}B lim {r['tf_limit']}" if r["tf_bytes"] is not None
               else ("no figures" if r["in_tilefit"] else "not in tilefit"))
        P(f"{kernel_short(r['kernel'], W):{W}} {r['arch']:7} {tfa:>16} {fmt(r['regs']):>4} "
          f"{fmt(r['spill_stores']):>7} {fmt(r['stack']):>6}  {r['file']}")
    P("")
    if a.all_kernels:
        P(f"== all measured kernels ({len(c.allk)}) ==")
        P(f"{'kernel':{W}} {'arch':7} {'tfB':>5} {'tfR':>4} {'lim':>4} {'regs':>4} {'spillST':>7} {'stack':>6}  file")
        for r in c.allk:
            P(f"{kernel_short(r['kernel'], W):{W}} {r['arch']:7} {fmt(r['tf_bytes']):>5} "
              f"{fmt(r['tf_regs']):>4} {fmt(r['tf_limit']):>4} {fmt(r['regs']):>4} "
              f"{fmt(r['spill_stores']):>7} {fmt(r['stack']):>6}  {r['file']}")
        P("")
    P(f"== failures ({len(c.failures)}) ==")
    for job, who, msg in c.failures:
        P(f"{who:8} {job['arch']:7} {os.path.relpath(job['file'], os.environ['SRC'])}: "
          f"{' | '.join(str(m) for m in msg)[:200]}")
    P("")
    report_stats(P, c.stats)
    return out


def report_diagnostics(P, a, c):
    """The warnings with their verdicts, then the other diagnostics."""
    W = a.name_width
    hdr = f"{'verdict':8} {'kernel':{W}} {'arch':7} {'tilefit':34} {'regs':>4} {'spillST':>7} {'spillLD':>7} {'stack':>6}  file"
    P(f"== {CHECK} warnings ({len(c.rows)}) ==")
    P(hdr)
    for r in sorted(c.rows, key=lambda r: (r["verdict"] != "FALSE", r["project"], r["file"], r["kernel"] or "")):
        P(f"{r['verdict']:8} {kernel_short(r['kernel'] or '?', W):{W}} {r['arch']:7} "
          f"{r['severity'][:4] + ' ' + r['short']:34} {fmt(r['regs']):>4} {fmt(r['spill_stores']):>7} "
          f"{fmt(r['spill_loads']):>7} {fmt(r['stack']):>6}  {r['file']}")
        if a.full_messages:
            P(f"         {r['message']}")
    P("")
    P(f"== other {CHECK} diagnostics (remarks/notes) ({len(c.remarks)}) ==")
    if c.remarks:
        P(hdr)
    for r in c.remarks:
        P(f"{'-':8} {kernel_short(r['kernel'] or '?', W):{W}} {r['arch']:7} "
          f"{r['severity'][:6] + ' ' + r['short']:34} {fmt(r['regs']):>4} {fmt(r['spill_stores']):>7} "
          f"{fmt(r['spill_loads']):>7} {fmt(r['stack']):>6}  {r['file']}")
        if a.full_messages:
            P(f"         {r['message']}")
    P("")


def report_stats(P, stats):
    P("== per project ==")
    keys = ["jobs", "nvcc_failed", "tilefit_failed", "tilefit_unit_not_ok", "ptxas_kernels",
            "matched_kernels", "ptxas_unmatched", "ptxas_spilling", "warn_OK", "warn_FALSE",
            "warn_NOMATCH", "missed"]
    extra = sorted({k for s in stats.values() for k in s if k.startswith("other_")})
    P(f"{'project':14}" + "".join(f"{k:>{max(len(k), 5) + 1}}" for k in keys + extra))
    tot = collections.Counter()
    for p, s in stats.items():
        tot.update(s)
        P(f"{p:14}" + "".join(f"{s[k]:>{max(len(k), 5) + 1}}" for k in keys + extra))
    P(f"{'TOTAL':14}" + "".join(f"{tot[k]:>{max(len(k), 5) + 1}}" for k in keys + extra))


def fmt(v):
    return "?" if v is None else str(v)


if __name__ == "__main__":
    main()
