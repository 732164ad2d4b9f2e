"""Runs as data against the reports they come from: every number of the JSON report is the
figure of its key path, every device entry the per-device table's, every op of --dump-ops the
ops array's; serving runs and comparisons against the command's; the exceptions of each kind
of failure.

Run by tests/cli/t_python.sh (PPSIM_LIB, PPSIM): python3 -m unittest discover -s tests/python
"""

import csv
import errno
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the package of the source tree, unless the tests are of an installed one (tests/cli/t_pip.sh)
if not os.environ.get("PPSIM_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(ROOT, "python"))

import ppsim  # noqa: E402
from ppsim import _run  # noqa: E402

PPSIM = os.environ.get("PPSIM", os.path.join(ROOT, "build", "ppsim"))


def command(*args):
    return subprocess.run([PPSIM, *args], check=True, capture_output=True, text=True).stdout


def leaves(x, path=""):
    """The numbers and nulls of a JSON document outside its arrays, by key path."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, path + "." + k if path else k)
    elif x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)):
        yield path, x


def same(got, want):
    """got, a figure, is the report's want (None: NaN), within the last digit the report's
    writer keeps."""
    if want is None:
        return math.isnan(got)
    return math.isclose(got, want, rel_tol=1e-14, abs_tol=0)


# what a report holds that is a setting or a list, not a figure
NOT_FIGURES = ("schema_version", "costs", "model", "requests.file", "noise.critical_devices",
               "replay.order")

RUNS = {
    "interleaved": lambda: ppsim.simulate(schedule="interleaved", p=4, m=8, v=2,
                                          op_times=True),
    "a model with noise": lambda: ppsim.simulate(schedule="zbh1", p=4, m=8, model="llama3-8b",
                                                 samples=5, jitter="normal:0.1", op_times=True),
    "stragglers": lambda: ppsim.simulate(schedule="1f1b", p=4, m=8, stragglers="1:2"),
    "a config file": lambda: ppsim.simulate(
        config=os.path.join(ROOT, "configs", "llama3-405b-h200-tp8.json")),
    "a replay": lambda: ppsim.simulate_replay(
        os.path.join(ROOT, "docs", "examples", "step-trace.json"), op_times=True),
    "a replay's what-if": lambda: ppsim.simulate_replay(
        os.path.join(ROOT, "docs", "examples", "step-trace.json"), without_slowest=True,
        schedule="interleaved", v=2, op_times=True),
    "serving": lambda: ppsim.simulate_serving(p=2, num_requests=30),
    "serving disaggregated": lambda: ppsim.simulate_serving(
        model="llama3-8b", p=2, num_requests=30, prefill_stages=1, batching="disaggregated"),
}


class Figures(unittest.TestCase):
    def test_every_number_of_the_json_report_is_the_figure_of_its_path(self):
        names = set(ppsim.figure_names())
        for what, make in RUNS.items():
            with self.subTest(what), make() as r:
                report = r.json()
                for path, want in leaves(report):
                    if path.startswith(NOT_FIGURES):
                        continue
                    if path not in names and want is None:
                        # an object the report writes as null: each of its figures is NaN
                        inside = [n for n in names if n.startswith(path + ".")]
                        self.assertTrue(inside, path)
                        for n in inside:
                            self.assertTrue(math.isnan(r.figure(n)), n)
                        continue
                    self.assertIn(path, names)
                    self.assertTrue(same(r.figure(path), want), (path, r.figure(path), want))

    def test_every_device_entry_is_the_device_table(self):
        for what, make in RUNS.items():
            with self.subTest(what), make() as r:
                devices = r.json()["devices"]
                self.assertEqual(len(devices), len(r.device_figure("busy")))
                for name in ppsim.device_figure_names():
                    column = r.device_figure(name)
                    for d, entry in enumerate(devices):
                        want = entry.get(name)
                        if isinstance(want, str):
                            continue
                        want = int(want) if isinstance(want, bool) else want
                        self.assertTrue(same(column[d], want), (name, d, column[d], want))

    def test_figures_are_those_the_run_has(self):
        with RUNS["interleaved"]() as r:
            f = r.figures()
            self.assertEqual((f["makespan"], f["critical_path.time"]), (28.5, 28.5))
            self.assertNotIn("step_time", f)
            self.assertNotIn("ttft.p50", f)
            self.assertEqual(r.time_unit, "t")
            self.assertFalse(r.serving)
        with ppsim.simulate(schedule="interleaved", p=4, m=8, v=2) as r:
            self.assertTrue(math.isnan(r.figure("critical_path.time")))

    def test_a_serving_device_s_fits_is_a_figure(self):
        with ppsim.simulate_serving(model="llama3-8b", gpu="h100-sxm", p=2,
                                    num_requests=3) as s:
            self.assertEqual(s.device_figure("fits"), [1.0, 1.0])
        with ppsim.simulate_serving(model="llama3-8b", gpu="h100-sxm", p=2, num_requests=3,
                                    kv_tokens=100000000, prompt="fixed:1000000",
                                    output="fixed:2") as s:
            self.assertEqual(s.device_figure("fits"), [0.0, 0.0])

    def test_an_unknown_name_is_a_ppsim_error(self):
        with RUNS["interleaved"]() as r:
            with self.assertRaisesRegex(ppsim.PpsimError, "figure 'makespam': no figure"):
                r.figure("makespam")
            with self.assertRaisesRegex(ppsim.PpsimError, "device figure 'bussy'"):
                r.device_figure("bussy")
            with self.assertRaisesRegex(ValueError, "NUL byte"):
                r.figure("makespan\0")
        with self.assertRaisesRegex(ValueError, "closed"):
            r.figure("makespan")

    def test_a_run_is_not_copied_or_pickled_and_stays_whole(self):
        import copy
        import pickle
        with RUNS["interleaved"]() as r:
            for what in (copy.copy, copy.deepcopy, pickle.dumps):
                with self.assertRaisesRegex(TypeError, "cannot be copied or pickled"):
                    what(r)
            self.assertEqual(r.figure("makespan"), 28.5)


def dump_ops(*args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ops.csv")
        command(*args, "--dump-ops=" + path)
        with open(path) as f:
            return list(csv.DictReader(f))


class Ops(unittest.TestCase):
    CASES = [["-s", "zbh1", "-p", "4", "-m", "8", "--tf", "1.5", "--tcomm", "0.25"],
             ["-s", "dualpipev", "-p", "4", "-m", "8"],
             ["-s", "interleaved", "-p", "4", "-v", "2", "-m", "8"],
             ["-c", os.path.join(ROOT, "configs", "llama3-8b-h100.json")]]

    @staticmethod
    def settings(args):
        keys = {"-s": "schedule", "-p": "p", "-m": "m", "-v": "v", "--tf": "t_f",
                "--tcomm": "t_comm", "-c": "config"}
        return {keys[k]: v for k, v in zip(args[::2], args[1::2])}

    def test_the_ops_array_is_the_op_dump_field_by_field(self):
        try:
            import numpy  # noqa: F401
        except ImportError:
            self.skipTest("NumPy is not installed")
        for args in self.CASES:
            with self.subTest(args=args):
                rows = dump_ops(*args)
                a = ppsim.run(ops=True, slack=True, **self.settings(args)).ops_array()
                self.assertEqual(len(a), len(rows))
                for op, row in zip(a, rows):
                    self.assertEqual(ppsim.OP_KINDS[op["op"]], row["op"])
                    for field in ("device", "chunk", "stage", "microbatch"):
                        self.assertEqual(op[field], int(row[field]), field)
                    for field in ("start", "end", "slack"):
                        self.assertEqual(op[field], float(row[field]), field)
                    self.assertEqual(bool(op["overlap"]), row.get("overlap") == "1")

    def test_the_ops_array_saves_copies_and_has_the_same_bytes_each_run(self):
        try:
            import numpy
        except ImportError:
            self.skipTest("NumPy is not installed")
        for slack in (False, True):
            a = ppsim.run(schedule="zbh1", ops=True, slack=slack).ops_array()
            b = ppsim.run(schedule="zbh1", ops=True, slack=slack).ops_array()
            # the records' padding is written too: two runs give the same bytes
            self.assertEqual(a.tobytes(), b.tobytes())
            # the fields lie in the order of their offsets, which np.save and copy need
            saved = io.BytesIO()
            numpy.save(saved, a)
            saved.seek(0)
            self.assertTrue((numpy.load(saved) == a).all())
            self.assertTrue((a.copy() == a).all())

    def test_the_ops_are_the_same_without_numpy(self):
        r = ppsim.run(schedule="dualpipev", p=4, m=8, ops=True, slack=True)
        got = r.ops
        saved = _run._numpy

        def missing():
            raise ImportError("no numpy here")

        _run._numpy = missing
        try:
            again = ppsim.run(schedule="dualpipev", p=4, m=8, ops=True, slack=True)
            self.assertEqual(again.ops, got)
            with self.assertRaisesRegex(ImportError, "no numpy"):
                again.ops_array()
        finally:
            _run._numpy = saved
        self.assertEqual(len(got), len(dump_ops("-s", "dualpipev", "-p", "4", "-m", "8")))

    def test_a_run_without_op_times_has_their_order_alone(self):
        with ppsim.simulate(schedule="1f1b", p=2, m=2) as r:
            self.assertEqual(r.op_count, 8)
            with self.assertRaisesRegex(ppsim.PpsimError, "kept no op times"):
                r.ops()
            with self.assertRaisesRegex(ppsim.PpsimError, "kept no op times"):
                r.ops_csv()
            try:
                a = r.ops_array()
            except ImportError:
                return
            self.assertEqual(a.dtype.names,
                             ("device", "chunk", "stage", "op", "microbatch", "overlap"))
            self.assertEqual(list(a["device"]), [0, 0, 0, 0, 1, 1, 1, 1])

    def test_a_serving_run_has_its_ops(self):
        with ppsim.simulate_serving(p=2, num_requests=5) as r:
            rows = list(csv.DictReader(io.StringIO(r.ops_csv())))
            ops = r.ops()
        self.assertEqual(len(ops), len(rows))
        self.assertEqual({op.op for op in ops}, {"F"})
        self.assertEqual(ops[-1].end, float(rows[-1]["end"]))


class Commands(unittest.TestCase):
    def test_serve_is_ppsim_serve(self):
        self.assertEqual(ppsim.serve(p=2, num_requests=50, rate=20),
                         json.loads(command("serve", "-p", "2", "--num-requests", "50",
                                            "--rate", "20", "--format=json")))
        with ppsim.simulate_serving(p=2, num_requests=50, rate=20) as r:
            self.assertTrue(r.serving)
            self.assertEqual(r.report("text"),
                             command("serve", "-p", "2", "--num-requests", "50", "--rate", "20"))

    def test_compare_runs_each_schedule_with_the_chunks_it_takes(self):
        got = ppsim.compare(["1f1b", "interleaved", "zbh1"], p=4, m=16, v=2)
        self.assertEqual(got, json.loads(command("compare", "--schedules=1f1b,interleaved,zbh1",
                                                 "-p", "4", "-m", "16", "-v", "2",
                                                 "--format=json")))
        self.assertEqual([r["v"] for r in got], [1, 2, 1])


class Errors(unittest.TestCase):
    def test_each_kind_of_failure_has_its_exception(self):
        self.assertTrue(issubclass(ppsim.PpsimError, ppsim.Error))
        self.assertTrue(issubclass(ppsim.PpsimError, ValueError))
        self.assertTrue(issubclass(ppsim.SimulationError, ppsim.PpsimError))
        self.assertTrue(issubclass(ppsim.PpsimFileError, OSError))
        self.assertTrue(issubclass(ppsim.PpsimFileError, ppsim.Error))
        self.assertTrue(issubclass(ppsim.LibraryError, OSError))
        self.assertTrue(issubclass(ppsim.PpsimMemoryError, MemoryError))
        with self.assertRaisesRegex(ppsim.PpsimFileError, "cannot read '/nonexistent/a.json'"):
            ppsim.run(config="/nonexistent/a.json")
        with self.assertRaisesRegex(ppsim.PpsimFileError, "/nonexistent/s.csv") as caught:
            ppsim.run(schedule_file="/nonexistent/s.csv")
        # an OSError as Python's own: the file, its errno and strerror; the message ppsim's
        self.assertEqual(caught.exception.errno, errno.ENOENT)
        self.assertEqual(caught.exception.filename, "/nonexistent/s.csv")
        self.assertEqual(caught.exception.strerror, os.strerror(errno.ENOENT))
        self.assertEqual(str(caught.exception),
                         "cannot read '/nonexistent/s.csv': " + os.strerror(errno.ENOENT))
        with self.assertRaises(OSError) as caught:
            ppsim.run(config=ROOT)
        self.assertEqual(caught.exception.errno, errno.EISDIR)
        # a file's name keeps the C calls' words it holds: only the message's own are the
        # package's
        with self.assertRaisesRegex(ppsim.PpsimFileError, "'/nonexistent/pp_simulate.csv'"):
            ppsim.run(schedule_file="/nonexistent/pp_simulate.csv")
        # a whole number from 2^53 on of any numeric key gets its range, not a type message
        with self.assertRaisesRegex(ppsim.PpsimError, "must be a number from 0 to 1e\\+09"):
            ppsim.run(config={"t_f": 2**60})
        cyclic = os.path.join(ROOT, "tests", "cli", "schedules", "cyclic.csv")
        with self.assertRaisesRegex(ppsim.SimulationError, "cyclic wait"):
            ppsim.run(schedule_file=cyclic)

    def test_a_config_runs_the_order_it_exports(self):
        # schedule_file given beside a config replaces the config's schedule, as on the
        # command line, with the same step
        cfg = os.path.join(ROOT, "configs", "llama3-8b-h100.json")
        with tempfile.TemporaryDirectory() as d:
            order = os.path.join(d, "order.csv")
            with open(order, "w") as f:
                f.write(ppsim.ops_csv(config=cfg))
            want = ppsim.run(config=cfg)["step_time"]
            got = ppsim.run(config=cfg, schedule_file=order)
            self.assertEqual(got["schedule"], "file")
            self.assertEqual(got["step_time"], want)

    def test_messages_name_what_python_sets_not_the_c_flags(self):
        with ppsim.simulate(p=2, m=2) as r:
            with self.assertRaisesRegex(ppsim.PpsimError,
                                        r"^ops_csv: .*simulate it with op_times=True\)$"):
                r.ops_csv()

    def test_messages_name_settings_by_their_keys(self):
        # in the package's words: ppsim.serve, not the C call pp_serve
        cases = [(dict(rate=5), 'key "rate" = 5: a serving option: use ppsim.serve$'),
                 (dict(t_f=0, t_b=0, t_w=0), '"t_f", "t_b" and "t_w": at least one'),
                 (dict(schedule="zb-auto", mem_limit=0.5), 'key "mem_limit" = 0.5'),
                 (dict(latency=3), 'needs a link \\("link" or "bandwidth"\\)')]
        for settings, pattern in cases:
            with self.subTest(settings=settings):
                with self.assertRaisesRegex(ppsim.PpsimError, pattern) as e:
                    ppsim.run(**settings)
                self.assertNotIn("--", str(e.exception))
        with self.assertRaisesRegex(ppsim.PpsimError, 'key "m" = 4: a training option, not for '
                                                      'ppsim.serve$'):
            ppsim.serve(m=4)

    def test_a_library_of_another_interface_or_none_is_a_library_error(self):
        code = ("import ppsim\ntry:\n    ppsim.run()\nexcept ppsim.LibraryError as e:\n"
                "    print(isinstance(e, OSError), e)\n")
        for lib, want in (("/nonexistent/libppsim.so.1", "libppsim.so not found"),
                          ("libz.so.1", "has the interface ABI 0")):
            with self.subTest(lib=lib):
                out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                     text=True, env=dict(os.environ, PPSIM_LIB=lib,
                                                         PYTHONPATH=os.path.join(ROOT, "python")))
                self.assertIn("True ppsim: ", out.stdout, out.stderr)
                self.assertIn(want, out.stdout)


if __name__ == "__main__":
    unittest.main()
