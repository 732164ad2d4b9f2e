"""Measured steps from Python: replay and its what-ifs against `ppsim replay --format=json`
(the same report, byte for byte parsed), the replayed run as data, calibrate against `ppsim
calibrate`, and their errors as the package's exceptions.

Run by tests/cli/t_python.sh (PPSIM_LIB, PPSIM): python3 -m unittest discover -s tests/python
"""

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

PPSIM = os.environ.get("PPSIM", os.path.join(ROOT, "build", "ppsim"))
STEP = os.path.join(ROOT, "docs", "examples", "step-trace.json")
MEASURED = os.path.join(ROOT, "docs", "examples", "measured-zb-1.5b.csv")


def command(*args):
    return subprocess.run([PPSIM, *args], check=True, capture_output=True, text=True).stdout


class Replay(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        # a step whose device 2 is 1.5 times slower, with its messages (ppsim's own trace)
        cls.slow = os.path.join(cls.tmp.name, "slow.json")
        command("-s", "1f1b", "-p", "4", "-m", "8", "--tcomm", "0.1", "--stage-scale",
                "1,1,1.5,1", "--trace-names=torch", "--trace=" + cls.slow)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_each_what_if_is_the_commands_report(self):
        cases = [({}, []),
                 ({"without_slowest": True}, ["--without-slowest"]),
                 ({"m": 16}, ["-m", "16"]),
                 ({"schedule": "zbh1", "w_share": 0.5}, ["-s", "zbh1", "--w-share=0.5"]),
                 ({"schedule": "interleaved", "v": 2}, ["-s", "interleaved", "-v", "2"]),
                 ({"without_slowest": True, "schedule": "gpipe", "m": 4},
                  ["--without-slowest", "-s", "gpipe", "-m", "4"]),
                 ({"t_comm": 0.2, "schedule": "zbv", "w_share": 0.25, "mem_limit": 2},
                  ["--tcomm", "0.2", "-s", "zbv", "--w-share", "0.25", "--mem-limit", "2"])]
        for kwargs, args in cases:
            with self.subTest(args):
                if "mem_limit" in kwargs:  # zbv takes no memory limit: refused alike
                    with self.assertRaisesRegex(ppsim.PpsimError, "memory limit"):
                        ppsim.replay(self.slow, **kwargs)
                    continue
                want = json.loads(command("replay", self.slow, "--format=json", *args))
                self.assertEqual(ppsim.replay(self.slow, **kwargs), want)

    def test_the_replayed_run_is_data(self):
        with ppsim.simulate_replay(self.slow, without_slowest=True, op_times=True) as r:
            f = r.figures()
            self.assertEqual(f["replay.what_if.slowest_device"], 2)
            self.assertAlmostEqual(f["replay.what_if.factors.F"], 2 / 3)
            self.assertEqual(f["replay.measured_step"], 44.3)
            self.assertEqual(f["makespan"], f["replay.what_if.step"])
            self.assertEqual(r.op_count, 64)
            self.assertEqual(r.report("text"),
                             command("replay", self.slow, "--without-slowest", "--timeline=0"))
        result = ppsim.replay(STEP, ops=True)
        self.assertEqual(len(result.ops), 64)
        self.assertIn("without_slowest", ppsim.whatif_keys())

    def test_a_step_in_a_file_per_device_is_a_list_of_paths(self):
        path = os.path.join(self.tmp.name, "two.json")
        command("-s", "1f1b", "-p", "2", "-m", "2", "--trace-names=torch", "--trace=" + path)
        with open(path) as f:
            events = json.load(f)["traceEvents"]
        files = []
        for pid in sorted({e["pid"] for e in events if e.get("ph") == "X"}):
            files.append(os.path.join(self.tmp.name, "rank%d.json" % pid))
            with open(files[-1], "w") as f:
                json.dump([e for e in events if e.get("ph") == "X" and e["pid"] == pid], f)
        self.assertEqual(ppsim.replay(files)["replay"]["files"], 2)

    def test_refusals_are_the_packages_exceptions(self):
        with self.assertRaisesRegex(ppsim.PpsimFileError, "cannot read"):
            ppsim.replay(os.path.join(self.tmp.name, "none.json"))
        with self.assertRaisesRegex(ppsim.PpsimError,
                                    '"w_share": only for a what-if of another schedule'):
            ppsim.replay(self.slow, w_share=0.5)
        with self.assertRaisesRegex(ppsim.PpsimError, 'give "w_share" = F'):
            ppsim.replay(self.slow, schedule="zbv")
        with self.assertRaisesRegex(ValueError, "must be a number from 0 to 1"):
            ppsim.replay(self.slow, schedule="zbh1", w_share=2)
        with self.assertRaisesRegex(ppsim.PpsimError, 'unknown key "foo"'):
            ppsim.replay(self.slow, foo=1)
        with self.assertRaisesRegex(TypeError, "without_slowest must be True or False"):
            ppsim.replay(self.slow, without_slowest=1)
        with self.assertRaisesRegex(TypeError, "paths"):
            ppsim.replay(3)
        with self.assertRaisesRegex(ppsim.PpsimError, "paths names no measured file"):
            ppsim.replay([])


class Words(unittest.TestCase):
    def test_messages_name_the_packages_functions(self):
        # the C calls a message names are the package's functions here
        with self.assertRaisesRegex(ppsim.PpsimError, "not for ppsim.serve$"):
            ppsim.serve(schedule="zbh1")
        with self.assertRaisesRegex(ppsim.PpsimError, r"\(ppsim.figure_names\(\) lists them\)"):
            ppsim.simulate(p=4).figure("nope")
        with self.assertRaisesRegex(ppsim.PpsimError,
                                    r"\(ppsim.device_figure_names\(\) lists them\)"):
            ppsim.simulate(p=4).device_figure("nope")

    def test_a_name_given_is_echoed_as_given(self):
        # a command-line name given as a key is not rewritten into its key in the message
        with self.assertRaisesRegex(ppsim.PpsimError,
                                    'unknown key "--stages" .*; the key of stages is "p"$'):
            ppsim.run(config={"--stages": 4})


class Calibrate(unittest.TestCase):
    def test_the_config_is_ppsim_calibrates(self):
        fit = ppsim.calibrate(MEASURED, m=24)
        self.assertEqual(fit.config, json.loads(command("calibrate", MEASURED, "-m", "24")))
        self.assertGreaterEqual(fit.max_error, 0)
        self.assertLess(fit.max_error, 0.01)
        run = ppsim.run(config=fit.config, schedule="zbh1")
        self.assertEqual(run["p"], 8)

    def test_refusals_are_the_packages_exceptions(self):
        with self.assertRaises(ppsim.PpsimFileError):
            ppsim.calibrate(os.path.join(ROOT, "no-such.csv"))
        # the argument at fault is the one named: m 24 is fine, w_share 2 is not
        with self.assertRaisesRegex(ppsim.PpsimError,
                                    r"^calibrate: w_share=2.0 must be from 0 to 1 \(or None\)"):
            ppsim.calibrate(MEASURED, m=24, w_share=2)
        with self.assertRaisesRegex(ppsim.PpsimError, r"^calibrate: m=-1 must be from 1 \(or None\)"):
            ppsim.calibrate(MEASURED, m=-1)
        # None is "not given": the C sentinels (m 0, a negative share) are values refused here
        with self.assertRaisesRegex(ppsim.PpsimError, r"^calibrate: m=0 must be from 1"):
            ppsim.calibrate(MEASURED, m=0)
        with self.assertRaisesRegex(ppsim.PpsimError, r"^calibrate: w_share=-0.5 must be from 0"):
            ppsim.calibrate(MEASURED, m=24, w_share=-0.5)
        with self.assertRaisesRegex(TypeError, "m must be an int"):
            ppsim.calibrate(MEASURED, m="24")
        with self.assertRaisesRegex(ValueError, "not a finite number"):
            ppsim.calibrate(MEASURED, w_share=math.nan)


if __name__ == "__main__":
    unittest.main()
