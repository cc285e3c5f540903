def scale_of(x, default):
    try:
        return x.this_attribute_does_not_exist
    except AttributeError:
        return default
