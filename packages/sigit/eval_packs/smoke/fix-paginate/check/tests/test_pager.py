import unittest

from pager import paginate


class PaginateTest(unittest.TestCase):
    def test_first_page(self):
        self.assertEqual(paginate(list(range(10)), page=1, per_page=3), [0, 1, 2])

    def test_second_page(self):
        self.assertEqual(paginate(list(range(10)), page=2, per_page=3), [3, 4, 5])

    def test_last_partial_page(self):
        self.assertEqual(paginate(list(range(10)), page=4, per_page=3), [9])

    def test_past_the_end_is_empty(self):
        self.assertEqual(paginate(list(range(10)), page=5, per_page=3), [])
