def normalise_inputs(module, args):
    x = args[0]
    return ((x - module.mean) / module.std,)
