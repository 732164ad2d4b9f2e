"""The package as a package: its version is the source's, its interface typed (py.typed, every
public function annotated), its exports there.

Run by tests/cli/t_python.sh (PPSIM_LIB): python3 -m unittest discover -s tests/python
"""

import inspect
import os
import re
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the package of the source tree, unless the tests are of an installed one (tests/cli/t_pip.sh)
if not os.environ.get("PPSIM_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(ROOT, "python"))

import ppsim  # noqa: E402


class Package(unittest.TestCase):
    def test_the_version_is_version_h_and_the_librarys(self):
        with open(os.path.join(ROOT, "include", "ppsim", "version.h")) as f:
            nums = dict(re.findall(r"#define PP_VERSION_(MAJOR|MINOR|PATCH) (\d+)", f.read()))
        want = "%s.%s.%s" % (nums["MAJOR"], nums["MINOR"], nums["PATCH"])
        self.assertEqual(ppsim.__version__, want)
        self.assertEqual(ppsim.version()[0], want)
        with open(os.path.join(ROOT, "include", "ppsim", "ppsim.h")) as f:
            abi = int(re.search(r"#define PP_ABI_VERSION (\d+)", f.read()).group(1))
        self.assertEqual(ppsim.abi_version(), abi)

    def test_the_interface_is_typed(self):
        self.assertTrue(os.path.exists(os.path.join(ROOT, "python", "ppsim", "py.typed")))
        for name in ppsim.__all__:
            obj = getattr(ppsim, name)
            if inspect.isfunction(obj):
                sig = inspect.signature(obj)
                self.assertIsNot(sig.return_annotation, inspect.Signature.empty, name)
                for p in sig.parameters.values():
                    self.assertIsNot(p.annotation, inspect.Parameter.empty, (name, p.name))
        for name, fn in inspect.getmembers(ppsim.Run, inspect.isfunction):
            if not name.startswith("_"):
                self.assertIsNot(inspect.signature(fn).return_annotation,
                                 inspect.Signature.empty, name)

    def test_the_names_of_figures_and_kinds_are_the_librarys(self):
        self.assertEqual(ppsim.OP_KINDS, ("F", "B", "W", "BW"))
        lib = ppsim._lib.load()
        self.assertEqual(tuple(lib.pp_op_kind_name(i).decode() for i in range(4)), ppsim.OP_KINDS)
        self.assertIsNone(lib.pp_op_kind_name(4))
        self.assertIn("makespan", ppsim.figure_names())
        self.assertIn("ttft.p99", ppsim.figure_names())
        self.assertIn("memory_bytes", ppsim.device_figure_names())


if __name__ == "__main__":
    unittest.main()
