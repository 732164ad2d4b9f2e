"""Every Python example of docs/python.md runs as a doctest, in the order of the page, from the
top of the source tree (the examples name configs/ as a reader there would), each block seeing
what the blocks before it set, as a reader's session would.

Run by tests/cli/t_python.sh (PPSIM_LIB): python3 -m unittest discover -s tests/python
"""

import doctest
import os
import re
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the package of the source tree, unless the tests are of an installed one (tests/cli/t_pip.sh)
if not os.environ.get("PPSIM_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(ROOT, "python"))
PAGE = os.path.join(ROOT, "docs", "python.md")


def blocks():
    """The ```python blocks of the page, with the line each starts on."""
    with open(PAGE) as f:
        text = f.read()
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        yield text.count("\n", 0, m.start()) + 2, m.group(1)


class Examples(unittest.TestCase):
    def test_every_python_example_of_the_page_runs_and_prints_what_it_shows(self):
        try:
            import numpy  # noqa: F401
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("NumPy or pandas is not installed (the page's ops examples use them)")
        found = list(blocks())
        self.assertGreaterEqual(len(found), 3)
        here = os.getcwd()
        os.chdir(ROOT)
        try:
            parser, globs = doctest.DocTestParser(), {}
            for line, block in found:
                test = parser.get_doctest(block, globs, "docs/python.md:%d" % line, PAGE, line)
                self.assertTrue(test.examples, "a python block without >>> at line %d" % line)
                runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
                out = []
                runner.run(test, out=out.append, clear_globs=False)
                self.assertEqual(runner.failures, 0, "".join(out))
                globs = test.globs
        finally:
            os.chdir(here)


if __name__ == "__main__":
    unittest.main()
