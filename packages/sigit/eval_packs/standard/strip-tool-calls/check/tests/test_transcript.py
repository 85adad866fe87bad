import unittest

from transcript import strip_tool_calls


class StripTest(unittest.TestCase):
    def test_example(self):
        text = "Reading it.\n<tool_call>\n<function=read_file>\n</function>\n</tool_call>"
        self.assertEqual(strip_tool_calls(text), "Reading it.")

    def test_two_blocks_and_text_between(self):
        text = ("A\n<tool_call>\n<function=x>\n<parameter=v>\n1\n</parameter>\n</function>\n</tool_call>\n"
                "B </parameter> stays\n<tool_call><function=y></function></tool_call>\nC\n")
        self.assertEqual(strip_tool_calls(text), "A\n\nB </parameter> stays\n\nC")

    def test_unterminated(self):
        self.assertEqual(strip_tool_calls("keep\n<tool_call>\n<function=z>"), "keep")

    def test_no_calls(self):
        self.assertEqual(strip_tool_calls("  plain  "), "  plain  ")
        self.assertEqual(strip_tool_calls("\n\nx\n\n"), "x")
