"""The Python package against the library: figures of the source document, the bytes of the
command's reports, errors as exceptions, compare and sweep.

Run by tests/cli/t_python.sh with PPSIM_LIB set to the build's libppsim.so.1 and PPSIM to its
ppsim binary: python3 -m unittest discover -s tests/python
"""

import json
import locale
import os
import pathlib
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


def command(*args):
    return subprocess.run([PPSIM, *args], check=True, capture_output=True, text=True).stdout


class Run(unittest.TestCase):
    def test_1f1b_p4_m8_takes_33_with_the_documents_bubble(self):
        r = ppsim.run(schedule="1f1b", p=4, m=8)
        self.assertEqual(r["makespan"], 33)
        self.assertAlmostEqual(r["bubble_ratio"], 3 / 11)

    def test_interleaved_v2_has_the_bubble_3_over_19(self):
        r = ppsim.run(schedule="interleaved", p=4, m=8, v=2)
        self.assertAlmostEqual(r["bubble_ratio"], 3 / 19)

    def test_long_option_names_and_underscores_name_the_same_settings(self):
        a = ppsim.run(schedule="zb-auto", stages=4, microbatches=8, mem_limit=2)
        b = ppsim.run(config={"schedule": "zb-auto", "p": 4, "m": 8}, **{"mem-limit": 2})
        self.assertEqual(a, b)

    def test_a_config_dict_applies_before_the_keywords(self):
        r = ppsim.run(config={"p": 8, "m": 16}, p=4)
        self.assertEqual((r["p"], r["m"]), (4, 16))
        # any mapping, as the hint says, not a dict alone
        import types
        r = ppsim.run(config=types.MappingProxyType({"p": 8, "m": 16}), p=4)
        self.assertEqual((r["p"], r["m"]), (4, 16))

    def test_a_config_file_reads_as_with_dash_c(self):
        path = os.path.join(ROOT, "configs", "llama3-70b-a100-nvlink.json")
        self.assertEqual(ppsim.run(config=path), json.loads(command("-c", path, "--format=json")))

    def test_the_json_report_is_the_commands_byte_for_byte(self):
        args = ["-s", "interleaved", "-p", "4", "-m", "8", "-v", "2"]
        for fmt in ("json", "text", "csv"):
            self.assertEqual(ppsim.report(fmt, schedule="interleaved", p=4, m=8, v=2),
                             command(*args, "--format=" + fmt))

    def test_ops_are_the_dump_ops_rows(self):
        r = ppsim.run(schedule="1f1b", p=4, m=8, ops=True)
        self.assertEqual(len(r.ops), 4 * 8 * 2)
        self.assertEqual(max(op.end for op in r.ops), 33)
        first = r.ops[0]
        self.assertEqual((first.device, first.op, first.microbatch, first.start), (0, "F", 0, 0))
        # the slack only when asked
        self.assertEqual({op.slack for op in r.ops}, {None})

    def test_ops_mark_an_overlapped_pair_as_the_dump_does(self):
        # DualPipeV's pairs: Op.overlap is the dump's overlap column, on each pair's F
        r = ppsim.run(schedule="dualpipev", p=4, m=8, ops=True)
        dump = ppsim.ops_csv(schedule="dualpipev", p=4, m=8).splitlines()
        column = dump[0].split(",").index("overlap")
        self.assertEqual([op.overlap for op in r.ops],
                         [row.split(",")[column] == "1" for row in dump[1:]])
        self.assertTrue(any(op.overlap for op in r.ops))
        self.assertEqual({op.overlap for op in ppsim.run(schedule="1f1b", ops=True).ops}, {False})

    def test_ops_have_their_slack_and_the_report_its_critical_path(self):
        # ZB-H1, p = 2, m = 1, unit costs: the last device's W could end a unit later
        r = ppsim.run(schedule="zbh1", p=2, m=1, ops=True, slack=True)
        self.assertEqual([op.slack for op in r.ops if op.slack > 0], [1])
        self.assertEqual([(op.device, op.op) for op in r.ops if op.slack > 0], [(1, "W")])
        path = r["critical_path"]
        self.assertEqual((path["time"], path["device"], path["devices"]), (5, 0, [3, 2]))

    def test_the_ops_csv_is_dump_ops_byte_for_byte(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ops.csv")
            command("-s", "zbh1", "-p", "4", "-m", "8", "--dump-ops=" + path)
            with open(path) as f:
                self.assertEqual(ppsim.ops_csv(schedule="zbh1", p=4, m=8), f.read())

    def test_bad_values_and_unknown_keys_raise_ppsim_error(self):
        with self.assertRaisesRegex(ppsim.PpsimError, "^key \"p\" '0': must be an integer"):
            ppsim.run(p=0)
        with self.assertRaisesRegex(ppsim.PpsimError, 'unknown key "stagez"'):
            ppsim.run(stagez=3)
        with self.assertRaisesRegex(ppsim.PpsimError, "config 'dict':1:"):
            ppsim.run(config={"p": "four"})
        # one setting under two names (its key and its option's long name) is refused, not
        # settled by the keywords' order; in a sweep it would repeat points
        with self.assertRaisesRegex(ppsim.PpsimError, '^ppsim: p and stages set one setting, '
                                    'key "p": give one$'):
            ppsim.run(p=2, stages=8)
        with self.assertRaisesRegex(ppsim.PpsimError, 'stages and p set one setting'):
            ppsim.sweep(stages=[8, 16], p=[2, 4])
        with self.assertRaisesRegex(ppsim.PpsimError, 't_f and tf set one setting'):
            ppsim.compare(["1f1b"], t_f=1, tf=3)
        self.assertEqual(ppsim.run(stages=8, mem_limit=None)["p"], 8)
        with self.assertRaisesRegex(ppsim.PpsimError, "format 'yaml'"):
            ppsim.report("yaml")
        # a step over its op limit is refused before it runs, naming its settings by their keys
        with self.assertRaisesRegex(ppsim.PpsimError,
                                    '^"p" = 64 "m" = 64 "v" = 1: 1f1b needs 8.19e\\+03 ops, '
                                    'above the limit of 10 simulated ops \\("max_ops"\\)$') as e:
            ppsim.run(max_ops=10, p=64, m=64)
        self.assertNotIsInstance(e.exception, ppsim.SimulationError)

    def test_the_version_is_the_commands(self):
        s, nums = ppsim.version()
        self.assertEqual(command("--version").split()[1], s)
        self.assertEqual(".".join(map(str, nums)), s)


class Listing(unittest.TestCase):
    def test_listing_is_ppsim_list_json(self):
        self.assertEqual(ppsim.listing(), json.loads(command("list", "--format=json")))
        self.assertIn("zbv-auto", ppsim.schedules())
        self.assertEqual(ppsim.schedules()[:2], ["gpipe", "1f1b"])


class CompareAndSweep(unittest.TestCase):
    def test_compare_is_ppsim_compare_schedules(self):
        got = ppsim.compare(["1f1b", "gpipe", "zbh1"], p=4, m=8)
        self.assertEqual([r["schedule"] for r in got], ["1f1b", "gpipe", "zbh1"])
        self.assertEqual(ppsim.compare(["1f1b", "zbh1"], format="text"),
                         command("compare", "--schedules=1f1b,zbh1"))

    def test_compare_takes_a_list_as_schedules_does_all_included(self):
        self.assertEqual(ppsim.compare("1f1b,zbh1", format="csv"),
                         command("compare", "--schedules=1f1b,zbh1", "-f", "csv"))
        self.assertEqual(ppsim.compare("all", p=4, m=8, format="csv"),
                         command("compare", "--schedules=all", "-p", "4", "-m", "8", "-f", "csv"))

    def test_advise_ranks_the_layouts_best_first_as_ppsim_advise(self):
        got = ppsim.advise(model="llama3-8b", gpus=8, global_batch=16, jobs=2)
        self.assertGreater(len(got), 1000)
        best = got[0]
        fitting = [r["tokens_per_s"] for r in got if r["fits"]]
        self.assertEqual(best["tokens_per_s"], max(fitting))
        self.assertTrue(best["fits"] and best["skipped"] is None and best["time_unit"] == "ms")
        self.assertIsInstance(best["schedule"], str)
        self.assertEqual(best["tp"] * best["p"] * best["dp"], 8)
        self.assertTrue(all(r["skipped"] for r in got if r["makespan"] is None))
        self.assertEqual(ppsim.advise(model="llama3-8b", gpus=8, global_batch=16, top=2),
                         got[:2])
        with self.assertRaisesRegex(ppsim.PpsimError, 'needs "model"'):
            ppsim.advise(p=4)

    def test_advise_fails_as_ppsim_advise_when_nothing_is_valid_or_fits(self):
        with self.assertRaisesRegex(ppsim.PpsimError, "none of the .* configurations is valid"):
            ppsim.advise(model="llama3-8b", gpus=8, global_batch=64, m=3)
        with self.assertRaisesRegex(ppsim.SimulationError, "none of the .* configurations fits"):
            ppsim.advise(model="llama3-405b", gpu="a100-80g", gpus=8, global_batch=64)

    def test_advise_recommends_what_ppsim_advise_does_with_axes_of_one_value(self):
        # 3 GPUs: tp and cp each take one value, whose axes hold no slot of the records
        got = ppsim.advise(model="llama3-8b", gpu="b200", gpus=3, global_batch=24, top=1)
        cli = json.loads(command("advise", "--model=llama3-8b", "--gpu=b200", "--gpus=3",
                                 "--global-batch=24", "--quiet", "-f", "json"))
        self.assertEqual(got[0]["schedule"], cli["recommended"]["schedule"])
        self.assertEqual(got[0]["step_time"], cli["recommended"]["step_time"])

    def test_sweep_runs_every_point_of_the_grid_in_order(self):
        got = ppsim.sweep(schedule="1f1b", p=[2, 4], m=[4, 8])
        self.assertEqual([(r["p"], r["m"]) for r in got], [(2, 4), (2, 8), (4, 4), (4, 8)])
        self.assertEqual(got[-1]["makespan"], 33)


class Values(unittest.TestCase):
    def test_number_like_values_are_written_as_the_numbers_they_hold(self):
        class Float(float):  # a float subclass whose repr is not a number, as np.float64's
            def __repr__(self):
                return "np.float64(%s)" % float.__repr__(self)

        class Scalar:  # a NumPy scalar: .item() gives the Python value
            def __init__(self, v):
                self.v = v

            def item(self):
                return self.v

        self.assertEqual(ppsim.run(t_f=Float(2.0))["makespan"],
                         ppsim.run(t_f=2.0)["makespan"])
        self.assertEqual(ppsim.run(p=Scalar(2), m=Scalar(4))["makespan"],
                         ppsim.run(p=2, m=4)["makespan"])
        self.assertEqual(ppsim.run(model="llama3-8b", p=2, flash_attention=Scalar(False))["p"], 2)


class Arguments(unittest.TestCase):
    """Every public function checks its arguments before the library sees them: TypeError for
    a wrong type, ValueError for a NUL byte (C would stop at it) or a number that is not finite;
    a message that names the argument."""

    def refused(self, error, pattern, call, *args, **kwargs):
        with self.assertRaisesRegex(error, pattern):
            call(*args, **kwargs)

    def test_a_path_setting_names_any_file(self):
        # a file name that is not UTF-8, as a str with os.fsdecode's surrogates, as bytes and as
        # a path object: the file the command line runs (a UnicodeEncodeError, a TypeError)
        with tempfile.TemporaryDirectory() as tmp:
            name = os.path.join(os.fsencode(tmp), b"s\xff.csv")
            command("-s", "1f1b", "-p", "4", "-m", "8", "--export-schedule=" + os.fsdecode(name))
            for value in (os.fsdecode(name), name, pathlib.Path(os.fsdecode(name))):
                self.assertEqual(ppsim.run(schedule_file=value)["makespan"], 33)
        self.refused(ValueError, r"schedule '\\ud800' holds a lone surrogate", ppsim.run,
                     schedule="\ud800")

    def test_nul_bytes_are_refused_wherever_a_string_goes(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cfg.json")
            with open(path, "w") as f:
                f.write('{"p": 2}')
            cases = [
                (ppsim.run, (), {"schedule": "1f1b\0junk"}),
                (ppsim.run, (), {"config": path + "\0junk"}),
                (ppsim.run, (), {"config": (path + "\0junk").encode()}),
                (ppsim.run, (), {"config": {"p\0junk": 2}}),
                (ppsim.run, (), {"config": {"schedule": "1f1b\0junk"}}),
                (ppsim.run, (), {"p\0junk": 2}),
                (ppsim.run, (), {"m": "8\0junk"}),
                (ppsim.run, (), {"layers_per_stage": ["1\0", "2"]}),
                (ppsim.report, ("json\0junk",), {}),
                (ppsim.ops_csv, (), {"schedule": "zbh1\0"}),
                (ppsim.compare, (["1f1b", "zbh1\0junk"],), {}),
                (ppsim.compare, ("1f1b,zbh1\0junk",), {}),
                (ppsim.compare, (["1f1b"],), {"format": "text\0junk"}),
                (ppsim.sweep, (), {"p": [2, "4\0junk"]}),
            ]
            for call, args, kwargs in cases:
                with self.subTest(call=call.__name__, args=args, kwargs=kwargs):
                    self.refused(ValueError, "NUL byte", call, *args, **kwargs)

    def test_wrong_types_raise_type_error_naming_the_argument(self):
        cases = [
            (ppsim.report, (None,), {}, "format must be a str, not NoneType"),
            (ppsim.report, (b"json",), {}, "format must be a str, not bytes"),
            (ppsim.compare, (["1f1b"],), {"format": None}, "format must be a str"),
            (ppsim.compare, (None,), {}, "schedules must be a str, a list or a tuple"),
            (ppsim.compare, ([1, 2],), {}, "name must be a str, not int"),
            (ppsim.run, (), {"schedule": 1}, "schedule must be a str, not int"),
            (ppsim.run, (), {"config": 3}, "config must be a path or a dict, not int"),
            (ppsim.run, (), {"config": True}, "config must be a path or a dict, not bool"),
            (ppsim.run, (), {"config": {1: 4}}, "config keys must be str, not int"),
            (ppsim.run, (), {"config": {("p",): 4}}, "config keys must be str, not tuple"),
            (ppsim.run, (), {"config": {"p": None}}, "config key 'p' is None"),
            (ppsim.run, (), {"config": {"p": {"x": 1}}}, "value is a number, .*, not dict"),
            (ppsim.run, (), {"ops": 1}, "ops must be True or False, not int"),
            (ppsim.run, (), {"ops": None}, "ops must be True or False, not NoneType"),
            (ppsim.run, (), {"ops": "yes"}, "ops must be True or False, not str"),
            (ppsim.run, (), {"slack": 1}, "slack must be True or False, not int"),
            (ppsim.simulate, (), {"op_times": None}, "op_times must be True or False"),
            (ppsim.simulate, (), {"schedule": 3}, "schedule must be a str, not int"),
            (ppsim.simulate_serving, (), {"config": 3}, "config must be a path or a dict"),
            (ppsim.run, (), {"p": True}, r"p=True: a bool, and p takes no yes or no"),
            (ppsim.run, (), {"schedule": "1f1b", "comm": False}, "comm=False: a bool"),
            (ppsim.run, (), {"m": b"8"}, "m: a setting.s value is a number, .*, not bytes"),
            (ppsim.run, (), {"m": {"x": 8}}, "m: .*, not dict"),
            (ppsim.run, (), {"t_f": 1j}, "t_f: .*, not complex"),
            (ppsim.run, (), {"m": object()}, "m: .*, not object"),
            (ppsim.run, (), {"layers_per_stage": [True, 2]}, "a name \\(in a list\\), not bool"),
            (ppsim.run, (), {"layers_per_stage": [[1], 2]}, "not list"),
            (ppsim.sweep, (), {"p": [2, None]}, "sweep axis p holds None"),
            (ppsim.sweep, (), {"p": [True, 4]}, "p=True: a bool"),
            (ppsim.replay, (STEP,), {"schedule": 4}, "schedule must be a str, not int"),
            (ppsim.replay, (STEP,), {"m": True}, "m=True: a bool, and m takes no yes or no"),
            (ppsim.simulate_replay, (STEP,), {"v": True}, "v=True: a bool"),
            (ppsim.replay, (STEP,), {"w_share": True, "schedule": "zbh1"}, "w_share=True: a bool"),
            (ppsim.advise, (), {"jobs": True}, "jobs must be an int, not bool"),
        ]
        for call, args, kwargs, pattern in cases:
            with self.subTest(call=call.__name__, args=args, kwargs=kwargs):
                self.refused(TypeError, pattern, call, *args, **kwargs)

    def test_a_seed_from_2_53_on_reads_back_from_a_config_dict(self):
        settings = dict(p=2, m=4, samples=3, jitter="normal:0.1")
        seed = 2**53 + 1
        self.assertEqual(ppsim.run(config=dict(settings, seed=seed))["noise"],
                         ppsim.run(seed=seed, **settings)["noise"])

    def test_a_negative_top_is_a_value_error(self):
        self.refused(ValueError, "top=-1: must be 0 or more", ppsim.advise, model="llama3-8b",
                     gpus=8, global_batch=16, top=-1)

    def test_ints_beyond_a_c_int_raise_value_error_naming_the_argument(self):
        for m in (2**31, 2**32 + 24, -2**31 - 1):
            with self.subTest(m=m):
                self.refused(ValueError, "m=%d: beyond the library's range" % m, ppsim.calibrate,
                             os.path.join(ROOT, "docs", "examples", "measured-zb-1.5b.csv"),
                             m=m)
        self.refused(ValueError, "jobs=1099511627776: beyond", ppsim.advise, jobs=2**40,
                     model="llama3-8b", gpus=8, global_batch=8)

    def test_numbers_that_are_not_finite_raise_value_error(self):
        for value in (float("nan"), float("inf"), -float("inf")):
            with self.subTest(value=value):
                self.refused(ValueError, "t_f=.*: not a finite number", ppsim.run, t_f=value)
                self.refused(ValueError, "not a finite number", ppsim.run,
                             config={"t_f": value})
                self.refused(ValueError, "not a finite number", ppsim.run,
                             config={"stage_scale": [1, value]})
                self.refused(ValueError, "not a finite number", ppsim.sweep, t_f=[1.0, value])

    def test_numbers_no_float_or_str_holds_raise_value_error_naming_the_argument(self):
        import decimal
        import fractions
        cases = [
            ({"t_f": fractions.Fraction(10**400, 3)}, "t_f=.*: not a finite number"),
            ({"t_f": decimal.Decimal("sNaN")}, "t_f=.*: not a finite number"),
            ({"t_f": decimal.Decimal("-Infinity")}, "t_f=.*: not a finite number"),
            ({"config": {"t_f": fractions.Fraction(10**400, 3)}}, "t_f=.*: not a finite"),
            ({"p": 10**5000}, "p: a number of 16610 bits, too large"),
            ({"t_f": decimal.Decimal("1E+5000")}, "t_f: a number of .* bits, too large"),
        ]
        for kwargs, pattern in cases:
            with self.subTest(pattern=pattern):
                self.refused(ValueError, "^ppsim: " + pattern, ppsim.run, **kwargs)

    def test_a_whole_fraction_or_decimal_is_the_integer_it_holds(self):
        import decimal
        import fractions
        self.assertEqual(ppsim.run(p=fractions.Fraction(8, 2), m=decimal.Decimal("8"))["m"], 8)
        self.assertEqual(ppsim.run(config={"p": fractions.Fraction(4)})["p"], 4)
        self.refused(ppsim.PpsimError, "key \"p\" '4.0'", ppsim.run, p=decimal.Decimal("4.0"))

    def test_an_empty_axis_is_refused_rather_than_sweeping_nothing(self):
        self.refused(ValueError, "sweep axis m is empty", ppsim.sweep, p=[2, 4], m=[])

    def test_a_refused_setting_is_a_ppsim_error_and_a_value_error(self):
        self.assertTrue(issubclass(ppsim.PpsimError, ValueError))
        self.refused(ppsim.PpsimError, 'unknown key "stagez"', ppsim.run, stagez=True)
        self.refused(ppsim.PpsimError, "key \"m\" '8.5'", ppsim.run, m=8.5)

    def test_right_values_of_every_kind_still_pass(self):
        import pathlib
        path = pathlib.Path(ROOT, "configs", "llama3-70b-a100-nvlink.json")
        self.assertEqual(ppsim.run(config=path)["p"], ppsim.run(config=str(path))["p"])
        self.assertEqual(ppsim.run(config=bytes(path))["p"], ppsim.run(config=str(path))["p"])
        self.assertEqual(ppsim.run(flash_attention=True, model="llama3-8b", p=2)["p"], 2)
        self.assertEqual(ppsim.run(p=2, m=None)["m"], 8)  # None: not set
        self.assertEqual(ppsim.run(config={"p": 2, "t_f": 1.5}, ops=False)["p"], 2)
        self.assertEqual(ppsim.compare(("1f1b", "zbh1"), format="csv").count("\n"), 3)
        self.assertEqual(ppsim.report(format="json", schedule="1f1b")[0], "{")
        import decimal
        import fractions
        self.assertEqual(ppsim.run(t_f=decimal.Decimal("1.5"))["makespan"],
                         ppsim.run(t_f=fractions.Fraction(3, 2))["makespan"])
        self.assertEqual(ppsim.run(t_f=decimal.Decimal("1.5"))["makespan"],
                         ppsim.run(t_f=1.5)["makespan"])
        self.refused(ValueError, "not a finite number", ppsim.run, t_f=decimal.Decimal("NaN"))
        self.assertEqual(ppsim.run(config={"t_f": decimal.Decimal("1.5")})["makespan"],
                         ppsim.run(t_f=1.5)["makespan"])


class Locale(unittest.TestCase):
    """Under a process locale that writes 1.5 as "1,5" (set as locale.setlocale sets it), every
    call reads "1.5" and gives what it gives in the "C" locale, and leaves the locale as it was."""

    SETTINGS = dict(schedule="zbh1", p=4, m=8, t_f=1.5, t_comm=0.25, stage_scale="1,1.5,1,0.75",
                    config={"t_b": 2.5, "t_w": 0.75})
    MODEL = dict(model="llama3-8b", gpu="h100-sxm", p=4)

    def calls(self, path):
        s, model = self.SETTINGS, self.MODEL
        return {
            "run": lambda: ppsim.run(ops=True, **s).ops,
            "run json": lambda: ppsim.report("json", **s),
            "run text": lambda: ppsim.report("text", **s),
            "run csv": lambda: ppsim.report("csv", **s),
            "ops": lambda: ppsim.ops_csv(**s),
            "model json": lambda: ppsim.report("json", **model),
            "model text": lambda: ppsim.report("text", **model),
            "config file": lambda: ppsim.report("json", config=path, t_comm=0.5),
            "compare": lambda: ppsim.compare(["1f1b", "zbh1"], t_f=1.5, t_w=0.25),
            "compare text": lambda: ppsim.compare("1f1b,zbh1", format="text", t_f=1.5),
            "compare csv": lambda: ppsim.compare("1f1b,zbh1", format="csv", t_comm=0.125),
            "sweep": lambda: ppsim.sweep(schedule="1f1b", t_f=[1.5, 2.25], t_comm=[0.25, 0.5]),
            "listing": ppsim.listing,
            "refused": lambda: self.message(lambda: ppsim.run(stage_scale="1,1.5e7")),
        }

    @staticmethod
    def message(call):
        try:
            call()
        except ppsim.PpsimError as e:
            return str(e)
        return None

    def test_numbers_read_and_write_as_in_the_c_locale(self):
        name = os.environ.get("PPSIM_TEST_LOCALE")
        if not name:
            self.skipTest("PPSIM_TEST_LOCALE names no locale (tests/cli/t_python.sh builds one)")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cfg.json")
            with open(path, "w") as f:
                f.write('{"t_f": 1.5, "t_b": 2.25, "schedule": "zbh1"}')
            calls = self.calls(path)
            want = {what: call() for what, call in calls.items()}
            saved = locale.setlocale(locale.LC_ALL)
            try:
                locale.setlocale(locale.LC_ALL, name)
                self.assertEqual(locale.localeconv()["decimal_point"], ",")
                for what, call in calls.items():
                    with self.subTest(what):
                        self.assertEqual(call(), want[what])
                        # the caller's locale stays as it was
                        self.assertEqual(locale.localeconv()["decimal_point"], ",")
            finally:
                locale.setlocale(locale.LC_ALL, saved)
        self.assertIn('"makespan":\t', want["run json"])
        self.assertIn("1.5", want["refused"])


class Pandas(unittest.TestCase):
    def setUp(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")

    def test_dataframe_has_the_dump_ops_columns(self):
        df = ppsim.dataframe(schedule="1f1b", p=4, m=8)
        self.assertEqual(list(df.columns), ["device", "chunk", "stage", "op", "microbatch",
                                            "start", "end", "overlap", "slack"])
        self.assertEqual(df["end"].max(), 33)
        self.assertEqual(list(df["op"].cat.categories), list(ppsim.OP_KINDS))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ops.csv")
            command("-s", "1f1b", "-p", "4", "-m", "8", "--dump-ops=" + path)
            import pandas
            want = pandas.read_csv(path)
        got = df.drop(columns="overlap").astype({"op": str})
        self.assertTrue(got.equals(want.astype(got.dtypes.to_dict())))

    def test_sweep_frame_has_a_row_per_point(self):
        df = ppsim.sweep_frame(p=[2, 4], m=8)
        self.assertEqual(list(df["makespan"]), [27, 33])


if __name__ == "__main__":
    unittest.main()
