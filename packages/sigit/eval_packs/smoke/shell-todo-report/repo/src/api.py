# TODO: auth
# TODO: rate limits
# TODO: pagination

ROUTES = {}
