def render(notes):
    return '\n'.join(n.title for n in notes)
