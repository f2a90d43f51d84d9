"""The machine and file helpers of bench.py (see bench/README.md).

log (the harness's progress lines), the machine's figures (cpu_model, mem_gib, loadavg,
cpu_busy_seconds, other_cpu: how busy other processes keep the CPUs), the first or last line a
command prints (first_line, last_line: tool versions), a file's sha256 (sha256), and
fill_cache, which lays out a cache folder full of other units' entries.

Standard library only.
"""
import hashlib
import os
import platform
import shutil
import subprocess
import time


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


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


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


def fill_cache(d, n):
    """A cache folder holding `n` entries of other units, laid out as tilefit lays out its
    own (`<2 hex>/<40 hex>.json`, about 2 KB each), with no size counters: the first run that
    stores counts each subfolder once."""
    if os.path.isdir(d):
        shutil.rmtree(d)
    blob = os.urandom(2048)
    for i in range(n):
        h = hashlib.sha1(str(i).encode()).hexdigest()
        sub = os.path.join(d, h[:2])
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, h + ".json"), "wb") as f:
            f.write(blob)
