"""The term table's full build as the builder child does it (``build._build_and_save``),
in this process: wall and CPU seconds, peak resident memory (``ru_maxrss``) after the
rows were counted (when the code has ``build.build_rows``) and at the end, and the
SHA-256 of every file but ``meta.json`` (to check that two versions of the code write
the same bytes).

``python benchmarks/term_table_bench.py LIBRARY_DB OUT_FOLDER`` (OUT_FOLDER is emptied
first; the library is only read). ``PYTHONPATH=<other checkout>/src`` measures other
code.
"""
import hashlib, json, os, resource, shutil, sys, time
from pathlib import Path
import paperdesk
from paperdesk.core.discover import build
db, out = Path(sys.argv[1]), Path(sys.argv[2])
shutil.rmtree(out, ignore_errors=True)
out.mkdir(parents=True)
peaks = {}
orig = build.build_rows if hasattr(build, "build_rows") else None
def mark(name):
    """Note the peak so far under ``name``."""
    peaks[name] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
load0 = os.getloadavg()
t, c = time.perf_counter(), time.process_time()
if orig is not None:
    def wrapped(*a, **k):
        """build_rows, then the peak so far."""
        r = orig(*a, **k); mark("after rows"); return r
    build.build_rows = wrapped
g = build._build_and_save(str(db), str(out), lambda d, t: None)
wall, cpu = time.perf_counter() - t, time.process_time() - c
mark("end")
sha = {}
for f in sorted(out.iterdir()):
    if f.name != "meta.json":
        sha[f.name] = hashlib.sha256(f.read_bytes()).hexdigest()
meta = json.loads((out / "meta.json").read_text())
res = {"code": paperdesk.__file__, "wall_s": wall, "cpu_s": cpu, "peak_mb": peaks,
       "load": [load0, os.getloadavg()], "meta": {k: meta[k] for k in ("papers", "terms", "parts")},
       "sha256": sha}
print(json.dumps(res, indent=1))
