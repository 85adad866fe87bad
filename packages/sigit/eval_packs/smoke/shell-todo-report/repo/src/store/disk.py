def save(note):
    # TODO: atomic write (TODO: fsync too)
    open(note.path, 'w').write(note.text)
