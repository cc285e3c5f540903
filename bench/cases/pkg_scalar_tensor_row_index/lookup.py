def pick_row(table, index):
    return table[index]
