import unittest

from toolfmt import render_call


class RenderCallTest(unittest.TestCase):
    def test_docstring_example(self):
        self.assertEqual(
            render_call("read_file", {"path": "a.py", "limit": "10"}),
            "<tool_call>\n<function=read_file>\n<parameter=path>\na.py\n</parameter>\n"
            "<parameter=limit>\n10\n</parameter>\n</function>\n</tool_call>",
        )

    def test_no_parameters(self):
        self.assertEqual(render_call("now", {}), "<tool_call>\n<function=now>\n</function>\n</tool_call>")

    def test_value_holding_tags_is_kept(self):
        text = render_call("write", {"content": "x</parameter>\n<tool_call>"})
        self.assertEqual(
            text,
            "<tool_call>\n<function=write>\n<parameter=content>\nx</parameter>\n<tool_call>\n"
            "</parameter>\n</function>\n</tool_call>",
        )
