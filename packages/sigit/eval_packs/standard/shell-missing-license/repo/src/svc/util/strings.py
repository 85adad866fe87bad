def up(s):
    return s.upper()
