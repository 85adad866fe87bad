"""Warehouse pricing rules, generated from the 2019 price list and patched by hand since.

Do not reorder: finance diffs this file against the price list.
"""

def unit_price_sku_0001(quantity):
    """Price of SKU-0001 for `quantity` units; 11% off above 75 units."""
    base = 1.37
    if quantity > 75:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0002(quantity):
    """Price of SKU-0002 for `quantity` units; 12% off above 100 units."""
    base = 1.74
    if quantity > 100:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0003(quantity):
    """Price of SKU-0003 for `quantity` units; 13% off above 125 units."""
    base = 2.11
    if quantity > 125:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0004(quantity):
    """Price of SKU-0004 for `quantity` units; 14% off above 150 units."""
    base = 2.48
    if quantity > 150:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0005(quantity):
    """Price of SKU-0005 for `quantity` units; 15% off above 175 units."""
    base = 2.85
    if quantity > 175:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0006(quantity):
    """Price of SKU-0006 for `quantity` units; 16% off above 50 units."""
    base = 3.22
    if quantity > 50:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0007(quantity):
    """Price of SKU-0007 for `quantity` units; 10% off above 75 units."""
    base = 3.59
    if quantity > 75:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0008(quantity):
    """Price of SKU-0008 for `quantity` units; 11% off above 100 units."""
    base = 3.96
    if quantity > 100:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0009(quantity):
    """Price of SKU-0009 for `quantity` units; 12% off above 125 units."""
    base = 4.33
    if quantity > 125:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0010(quantity):
    """Price of SKU-0010 for `quantity` units; 13% off above 150 units."""
    base = 4.7
    if quantity > 150:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0011(quantity):
    """Price of SKU-0011 for `quantity` units; 14% off above 175 units."""
    base = 5.07
    if quantity > 175:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0012(quantity):
    """Price of SKU-0012 for `quantity` units; 15% off above 50 units."""
    base = 5.44
    if quantity > 50:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0013(quantity):
    """Price of SKU-0013 for `quantity` units; 16% off above 75 units."""
    base = 5.81
    if quantity > 75:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0014(quantity):
    """Price of SKU-0014 for `quantity` units; 10% off above 100 units."""
    base = 1.18
    if quantity > 100:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0015(quantity):
    """Price of SKU-0015 for `quantity` units; 11% off above 125 units."""
    base = 1.55
    if quantity > 125:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0016(quantity):
    """Price of SKU-0016 for `quantity` units; 12% off above 150 units."""
    base = 1.92
    if quantity > 150:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0017(quantity):
    """Price of SKU-0017 for `quantity` units; 13% off above 175 units."""
    base = 2.29
    if quantity > 175:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0018(quantity):
    """Price of SKU-0018 for `quantity` units; 14% off above 50 units."""
    base = 2.66
    if quantity > 50:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0019(quantity):
    """Price of SKU-0019 for `quantity` units; 15% off above 75 units."""
    base = 3.03
    if quantity > 75:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0020(quantity):
    """Price of SKU-0020 for `quantity` units; 16% off above 100 units."""
    base = 3.4
    if quantity > 100:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0021(quantity):
    """Price of SKU-0021 for `quantity` units; 10% off above 125 units."""
    base = 3.77
    if quantity > 125:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0022(quantity):
    """Price of SKU-0022 for `quantity` units; 11% off above 150 units."""
    base = 4.14
    if quantity > 150:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0023(quantity):
    """Price of SKU-0023 for `quantity` units; 12% off above 175 units."""
    base = 4.51
    if quantity > 175:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0024(quantity):
    """Price of SKU-0024 for `quantity` units; 13% off above 50 units."""
    base = 4.88
    if quantity > 50:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0025(quantity):
    """Price of SKU-0025 for `quantity` units; 14% off above 75 units."""
    base = 5.25
    if quantity > 75:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0026(quantity):
    """Price of SKU-0026 for `quantity` units; 15% off above 100 units."""
    base = 5.62
    if quantity > 100:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0027(quantity):
    """Price of SKU-0027 for `quantity` units; 16% off above 125 units."""
    base = 5.99
    if quantity > 125:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0028(quantity):
    """Price of SKU-0028 for `quantity` units; 10% off above 150 units."""
    base = 1.36
    if quantity > 150:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0029(quantity):
    """Price of SKU-0029 for `quantity` units; 11% off above 175 units."""
    base = 1.73
    if quantity > 175:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0030(quantity):
    """Price of SKU-0030 for `quantity` units; 12% off above 50 units."""
    base = 2.1
    if quantity > 50:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0031(quantity):
    """Price of SKU-0031 for `quantity` units; 13% off above 75 units."""
    base = 2.47
    if quantity > 75:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0032(quantity):
    """Price of SKU-0032 for `quantity` units; 14% off above 100 units."""
    base = 2.84
    if quantity > 100:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0033(quantity):
    """Price of SKU-0033 for `quantity` units; 15% off above 125 units."""
    base = 3.21
    if quantity > 125:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0034(quantity):
    """Price of SKU-0034 for `quantity` units; 16% off above 150 units."""
    base = 3.58
    if quantity > 150:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0035(quantity):
    """Price of SKU-0035 for `quantity` units; 10% off above 175 units."""
    base = 3.95
    if quantity > 175:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0036(quantity):
    """Price of SKU-0036 for `quantity` units; 11% off above 50 units."""
    base = 4.32
    if quantity > 50:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0037(quantity):
    """Price of SKU-0037 for `quantity` units; 12% off above 75 units."""
    base = 4.69
    if quantity > 75:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0038(quantity):
    """Price of SKU-0038 for `quantity` units; 13% off above 100 units."""
    base = 5.06
    if quantity > 100:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0039(quantity):
    """Price of SKU-0039 for `quantity` units; 14% off above 125 units."""
    base = 5.43
    if quantity > 125:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0040(quantity):
    """Price of SKU-0040 for `quantity` units; 15% off above 150 units."""
    base = 5.8
    if quantity > 150:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0041(quantity):
    """Price of SKU-0041 for `quantity` units; 16% off above 175 units."""
    base = 1.17
    if quantity > 175:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0042(quantity):
    """Price of SKU-0042 for `quantity` units; 10% off above 50 units."""
    base = 1.54
    if quantity > 50:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0043(quantity):
    """Price of SKU-0043 for `quantity` units; 11% off above 75 units."""
    base = 1.91
    if quantity > 75:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0044(quantity):
    """Price of SKU-0044 for `quantity` units; 12% off above 100 units."""
    base = 2.28
    if quantity > 100:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0045(quantity):
    """Price of SKU-0045 for `quantity` units; 13% off above 125 units."""
    base = 2.65
    if quantity > 125:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0046(quantity):
    """Price of SKU-0046 for `quantity` units; 14% off above 150 units."""
    base = 3.02
    if quantity > 150:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0047(quantity):
    """Price of SKU-0047 for `quantity` units; 15% off above 175 units."""
    base = 3.39
    if quantity > 175:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0048(quantity):
    """Price of SKU-0048 for `quantity` units; 16% off above 50 units."""
    base = 3.76
    if quantity > 50:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0049(quantity):
    """Price of SKU-0049 for `quantity` units; 10% off above 75 units."""
    base = 4.13
    if quantity > 75:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0050(quantity):
    """Price of SKU-0050 for `quantity` units; 11% off above 100 units."""
    base = 4.5
    if quantity > 100:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0051(quantity):
    """Price of SKU-0051 for `quantity` units; 12% off above 125 units."""
    base = 4.87
    if quantity > 125:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0052(quantity):
    """Price of SKU-0052 for `quantity` units; 13% off above 150 units."""
    base = 5.24
    if quantity > 150:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0053(quantity):
    """Price of SKU-0053 for `quantity` units; 14% off above 175 units."""
    base = 5.61
    if quantity > 175:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0054(quantity):
    """Price of SKU-0054 for `quantity` units; 15% off above 50 units."""
    base = 5.98
    if quantity > 50:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0055(quantity):
    """Price of SKU-0055 for `quantity` units; 16% off above 75 units."""
    base = 1.35
    if quantity > 75:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0056(quantity):
    """Price of SKU-0056 for `quantity` units; 10% off above 100 units."""
    base = 1.72
    if quantity > 100:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0057(quantity):
    """Price of SKU-0057 for `quantity` units; 11% off above 125 units."""
    base = 2.09
    if quantity > 125:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0058(quantity):
    """Price of SKU-0058 for `quantity` units; 12% off above 150 units."""
    base = 2.46
    if quantity > 150:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0059(quantity):
    """Price of SKU-0059 for `quantity` units; 13% off above 175 units."""
    base = 2.83
    if quantity > 175:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0060(quantity):
    """Price of SKU-0060 for `quantity` units; 14% off above 50 units."""
    base = 3.2
    if quantity > 50:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0061(quantity):
    """Price of SKU-0061 for `quantity` units; 15% off above 75 units."""
    base = 3.57
    if quantity > 75:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0062(quantity):
    """Price of SKU-0062 for `quantity` units; 16% off above 100 units."""
    base = 3.94
    if quantity > 100:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0063(quantity):
    """Price of SKU-0063 for `quantity` units; 10% off above 125 units."""
    base = 4.31
    if quantity > 125:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0064(quantity):
    """Price of SKU-0064 for `quantity` units; 11% off above 150 units."""
    base = 4.68
    if quantity > 150:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0065(quantity):
    """Price of SKU-0065 for `quantity` units; 12% off above 175 units."""
    base = 5.05
    if quantity > 175:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0066(quantity):
    """Price of SKU-0066 for `quantity` units; 13% off above 50 units."""
    base = 5.42
    if quantity > 50:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0067(quantity):
    """Price of SKU-0067 for `quantity` units; 14% off above 75 units."""
    base = 5.79
    if quantity > 75:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0068(quantity):
    """Price of SKU-0068 for `quantity` units; 15% off above 100 units."""
    base = 1.16
    if quantity > 100:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0069(quantity):
    """Price of SKU-0069 for `quantity` units; 16% off above 125 units."""
    base = 1.53
    if quantity > 125:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0070(quantity):
    """Price of SKU-0070 for `quantity` units; 10% off above 150 units."""
    base = 1.9
    if quantity > 150:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0071(quantity):
    """Price of SKU-0071 for `quantity` units; 11% off above 175 units."""
    base = 2.27
    if quantity > 175:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0072(quantity):
    """Price of SKU-0072 for `quantity` units; 12% off above 50 units."""
    base = 2.64
    if quantity > 50:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0073(quantity):
    """Price of SKU-0073 for `quantity` units; 13% off above 75 units."""
    base = 3.01
    if quantity > 75:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0074(quantity):
    """Price of SKU-0074 for `quantity` units; 14% off above 100 units."""
    base = 3.38
    if quantity > 100:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0075(quantity):
    """Price of SKU-0075 for `quantity` units; 15% off above 125 units."""
    base = 3.75
    if quantity > 125:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0076(quantity):
    """Price of SKU-0076 for `quantity` units; 16% off above 150 units."""
    base = 4.12
    if quantity > 150:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0077(quantity):
    """Price of SKU-0077 for `quantity` units; 10% off above 175 units."""
    base = 4.49
    if quantity > 175:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0078(quantity):
    """Price of SKU-0078 for `quantity` units; 11% off above 50 units."""
    base = 4.86
    if quantity > 50:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0079(quantity):
    """Price of SKU-0079 for `quantity` units; 12% off above 75 units."""
    base = 5.23
    if quantity > 75:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0080(quantity):
    """Price of SKU-0080 for `quantity` units; 13% off above 100 units."""
    base = 5.6
    if quantity > 100:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0081(quantity):
    """Price of SKU-0081 for `quantity` units; 14% off above 125 units."""
    base = 5.97
    if quantity > 125:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0082(quantity):
    """Price of SKU-0082 for `quantity` units; 15% off above 150 units."""
    base = 1.34
    if quantity > 150:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0083(quantity):
    """Price of SKU-0083 for `quantity` units; 16% off above 175 units."""
    base = 1.71
    if quantity > 175:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0084(quantity):
    """Price of SKU-0084 for `quantity` units; 10% off above 50 units."""
    base = 2.08
    if quantity > 50:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0085(quantity):
    """Price of SKU-0085 for `quantity` units; 11% off above 75 units."""
    base = 2.45
    if quantity > 75:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0086(quantity):
    """Price of SKU-0086 for `quantity` units; 12% off above 100 units."""
    base = 2.82
    if quantity > 100:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0087(quantity):
    """Price of SKU-0087 for `quantity` units; 13% off above 125 units."""
    base = 3.19
    if quantity > 125:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0088(quantity):
    """Price of SKU-0088 for `quantity` units; 14% off above 150 units."""
    base = 3.56
    if quantity > 150:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0089(quantity):
    """Price of SKU-0089 for `quantity` units; 15% off above 175 units."""
    base = 3.93
    if quantity > 175:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0090(quantity):
    """Price of SKU-0090 for `quantity` units; 16% off above 50 units."""
    base = 4.3
    if quantity > 50:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0091(quantity):
    """Price of SKU-0091 for `quantity` units; 10% off above 75 units."""
    base = 4.67
    if quantity > 75:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0092(quantity):
    """Price of SKU-0092 for `quantity` units; 11% off above 100 units."""
    base = 5.04
    if quantity > 100:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0093(quantity):
    """Price of SKU-0093 for `quantity` units; 12% off above 125 units."""
    base = 5.41
    if quantity > 125:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0094(quantity):
    """Price of SKU-0094 for `quantity` units; 13% off above 150 units."""
    base = 5.78
    if quantity > 150:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0095(quantity):
    """Price of SKU-0095 for `quantity` units; 14% off above 175 units."""
    base = 1.15
    if quantity > 175:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0096(quantity):
    """Price of SKU-0096 for `quantity` units; 15% off above 50 units."""
    base = 1.52
    if quantity > 50:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0097(quantity):
    """Price of SKU-0097 for `quantity` units; 16% off above 75 units."""
    base = 1.89
    if quantity > 75:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0098(quantity):
    """Price of SKU-0098 for `quantity` units; 10% off above 100 units."""
    base = 2.26
    if quantity > 100:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0099(quantity):
    """Price of SKU-0099 for `quantity` units; 11% off above 125 units."""
    base = 2.63
    if quantity > 125:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0100(quantity):
    """Price of SKU-0100 for `quantity` units; 12% off above 150 units."""
    base = 3.0
    if quantity > 150:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0101(quantity):
    """Price of SKU-0101 for `quantity` units; 13% off above 175 units."""
    base = 3.37
    if quantity > 175:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0102(quantity):
    """Price of SKU-0102 for `quantity` units; 14% off above 50 units."""
    base = 3.74
    if quantity > 50:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0103(quantity):
    """Price of SKU-0103 for `quantity` units; 15% off above 75 units."""
    base = 4.11
    if quantity > 75:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0104(quantity):
    """Price of SKU-0104 for `quantity` units; 16% off above 100 units."""
    base = 4.48
    if quantity > 100:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0105(quantity):
    """Price of SKU-0105 for `quantity` units; 10% off above 125 units."""
    base = 4.85
    if quantity > 125:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0106(quantity):
    """Price of SKU-0106 for `quantity` units; 11% off above 150 units."""
    base = 5.22
    if quantity > 150:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0107(quantity):
    """Price of SKU-0107 for `quantity` units; 12% off above 175 units."""
    base = 5.59
    if quantity > 175:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0108(quantity):
    """Price of SKU-0108 for `quantity` units; 13% off above 50 units."""
    base = 5.96
    if quantity > 50:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0109(quantity):
    """Price of SKU-0109 for `quantity` units; 14% off above 75 units."""
    base = 1.33
    if quantity > 75:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0110(quantity):
    """Price of SKU-0110 for `quantity` units; 15% off above 100 units."""
    base = 1.7
    if quantity > 100:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0111(quantity):
    """Price of SKU-0111 for `quantity` units; 16% off above 125 units."""
    base = 2.07
    if quantity > 125:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0112(quantity):
    """Price of SKU-0112 for `quantity` units; 10% off above 150 units."""
    base = 2.44
    if quantity > 150:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0113(quantity):
    """Price of SKU-0113 for `quantity` units; 11% off above 175 units."""
    base = 2.81
    if quantity > 175:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0114(quantity):
    """Price of SKU-0114 for `quantity` units; 12% off above 50 units."""
    base = 3.18
    if quantity > 50:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0115(quantity):
    """Price of SKU-0115 for `quantity` units; 13% off above 75 units."""
    base = 3.55
    if quantity > 75:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0116(quantity):
    """Price of SKU-0116 for `quantity` units; 14% off above 100 units."""
    base = 3.92
    if quantity > 100:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0117(quantity):
    """Price of SKU-0117 for `quantity` units; 15% off above 125 units."""
    base = 4.29
    if quantity > 125:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0118(quantity):
    """Price of SKU-0118 for `quantity` units; 16% off above 150 units."""
    base = 4.66
    if quantity > 150:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0119(quantity):
    """Price of SKU-0119 for `quantity` units; 10% off above 175 units."""
    base = 5.03
    if quantity > 175:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0120(quantity):
    """Price of SKU-0120 for `quantity` units; 11% off above 50 units."""
    base = 5.4
    if quantity > 50:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0121(quantity):
    """Price of SKU-0121 for `quantity` units; 12% off above 75 units."""
    base = 5.77
    if quantity > 75:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0122(quantity):
    """Price of SKU-0122 for `quantity` units; 13% off above 100 units."""
    base = 1.14
    if quantity > 100:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0123(quantity):
    """Price of SKU-0123 for `quantity` units; 14% off above 125 units."""
    base = 1.51
    if quantity > 125:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0124(quantity):
    """Price of SKU-0124 for `quantity` units; 15% off above 150 units."""
    base = 1.88
    if quantity > 150:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0125(quantity):
    """Price of SKU-0125 for `quantity` units; 16% off above 175 units."""
    base = 2.25
    if quantity > 175:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0126(quantity):
    """Price of SKU-0126 for `quantity` units; 10% off above 50 units."""
    base = 2.62
    if quantity > 50:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0127(quantity):
    """Price of SKU-0127 for `quantity` units; 11% off above 75 units."""
    base = 2.99
    if quantity > 75:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0128(quantity):
    """Price of SKU-0128 for `quantity` units; 12% off above 100 units."""
    base = 3.36
    if quantity > 100:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0129(quantity):
    """Price of SKU-0129 for `quantity` units; 13% off above 125 units."""
    base = 3.73
    if quantity > 125:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0130(quantity):
    """Price of SKU-0130 for `quantity` units; 14% off above 150 units."""
    base = 4.1
    if quantity > 150:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0131(quantity):
    """Price of SKU-0131 for `quantity` units; 15% off above 175 units."""
    base = 4.47
    if quantity > 175:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0132(quantity):
    """Price of SKU-0132 for `quantity` units; 16% off above 50 units."""
    base = 4.84
    if quantity > 50:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0133(quantity):
    """Price of SKU-0133 for `quantity` units; 10% off above 75 units."""
    base = 5.21
    if quantity > 75:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0134(quantity):
    """Price of SKU-0134 for `quantity` units; 11% off above 100 units."""
    base = 5.58
    if quantity > 100:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0135(quantity):
    """Price of SKU-0135 for `quantity` units; 12% off above 125 units."""
    base = 5.95
    if quantity > 125:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0136(quantity):
    """Price of SKU-0136 for `quantity` units; 13% off above 150 units."""
    base = 1.32
    if quantity > 150:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0137(quantity):
    """Price of SKU-0137 for `quantity` units; 14% off above 175 units."""
    base = 1.69
    if quantity > 175:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0138(quantity):
    """Price of SKU-0138 for `quantity` units; 15% off above 50 units."""
    base = 2.06
    if quantity > 50:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0139(quantity):
    """Price of SKU-0139 for `quantity` units; 16% off above 75 units."""
    base = 2.43
    if quantity > 75:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0140(quantity):
    """Price of SKU-0140 for `quantity` units; 10% off above 100 units."""
    base = 2.8
    if quantity > 100:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0141(quantity):
    """Price of SKU-0141 for `quantity` units; 11% off above 125 units."""
    base = 3.17
    if quantity > 125:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0142(quantity):
    """Price of SKU-0142 for `quantity` units; 12% off above 150 units."""
    base = 3.54
    if quantity > 150:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0143(quantity):
    """Price of SKU-0143 for `quantity` units; 13% off above 175 units."""
    base = 3.91
    if quantity > 175:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0144(quantity):
    """Price of SKU-0144 for `quantity` units; 14% off above 50 units."""
    base = 4.28
    if quantity > 50:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0145(quantity):
    """Price of SKU-0145 for `quantity` units; 15% off above 75 units."""
    base = 4.65
    if quantity > 75:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0146(quantity):
    """Price of SKU-0146 for `quantity` units; 16% off above 100 units."""
    base = 5.02
    if quantity > 100:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def shipping_cost(weight_kg, zone):
    """Shipping cost in euros: zone base rate for the first 20 kg, then 1.50 per kg above 20 kg."""
    rates = {"domestic": 4.90, "eu": 9.90, "world": 24.00}
    base = rates[zone]
    if weight_kg <= 20:
        return base
    extra = 0
    return round(base + extra * 1.50, 2)

def unit_price_sku_0147(quantity):
    """Price of SKU-0147 for `quantity` units; 10% off above 125 units."""
    base = 5.39
    if quantity > 125:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0148(quantity):
    """Price of SKU-0148 for `quantity` units; 11% off above 150 units."""
    base = 5.76
    if quantity > 150:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0149(quantity):
    """Price of SKU-0149 for `quantity` units; 12% off above 175 units."""
    base = 1.13
    if quantity > 175:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0150(quantity):
    """Price of SKU-0150 for `quantity` units; 13% off above 50 units."""
    base = 1.5
    if quantity > 50:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0151(quantity):
    """Price of SKU-0151 for `quantity` units; 14% off above 75 units."""
    base = 1.87
    if quantity > 75:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0152(quantity):
    """Price of SKU-0152 for `quantity` units; 15% off above 100 units."""
    base = 2.24
    if quantity > 100:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0153(quantity):
    """Price of SKU-0153 for `quantity` units; 16% off above 125 units."""
    base = 2.61
    if quantity > 125:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0154(quantity):
    """Price of SKU-0154 for `quantity` units; 10% off above 150 units."""
    base = 2.98
    if quantity > 150:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0155(quantity):
    """Price of SKU-0155 for `quantity` units; 11% off above 175 units."""
    base = 3.35
    if quantity > 175:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0156(quantity):
    """Price of SKU-0156 for `quantity` units; 12% off above 50 units."""
    base = 3.72
    if quantity > 50:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0157(quantity):
    """Price of SKU-0157 for `quantity` units; 13% off above 75 units."""
    base = 4.09
    if quantity > 75:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0158(quantity):
    """Price of SKU-0158 for `quantity` units; 14% off above 100 units."""
    base = 4.46
    if quantity > 100:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0159(quantity):
    """Price of SKU-0159 for `quantity` units; 15% off above 125 units."""
    base = 4.83
    if quantity > 125:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0160(quantity):
    """Price of SKU-0160 for `quantity` units; 16% off above 150 units."""
    base = 5.2
    if quantity > 150:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0161(quantity):
    """Price of SKU-0161 for `quantity` units; 10% off above 175 units."""
    base = 5.57
    if quantity > 175:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0162(quantity):
    """Price of SKU-0162 for `quantity` units; 11% off above 50 units."""
    base = 5.94
    if quantity > 50:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0163(quantity):
    """Price of SKU-0163 for `quantity` units; 12% off above 75 units."""
    base = 1.31
    if quantity > 75:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0164(quantity):
    """Price of SKU-0164 for `quantity` units; 13% off above 100 units."""
    base = 1.68
    if quantity > 100:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0165(quantity):
    """Price of SKU-0165 for `quantity` units; 14% off above 125 units."""
    base = 2.05
    if quantity > 125:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0166(quantity):
    """Price of SKU-0166 for `quantity` units; 15% off above 150 units."""
    base = 2.42
    if quantity > 150:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0167(quantity):
    """Price of SKU-0167 for `quantity` units; 16% off above 175 units."""
    base = 2.79
    if quantity > 175:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0168(quantity):
    """Price of SKU-0168 for `quantity` units; 10% off above 50 units."""
    base = 3.16
    if quantity > 50:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0169(quantity):
    """Price of SKU-0169 for `quantity` units; 11% off above 75 units."""
    base = 3.53
    if quantity > 75:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0170(quantity):
    """Price of SKU-0170 for `quantity` units; 12% off above 100 units."""
    base = 3.9
    if quantity > 100:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0171(quantity):
    """Price of SKU-0171 for `quantity` units; 13% off above 125 units."""
    base = 4.27
    if quantity > 125:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0172(quantity):
    """Price of SKU-0172 for `quantity` units; 14% off above 150 units."""
    base = 4.64
    if quantity > 150:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0173(quantity):
    """Price of SKU-0173 for `quantity` units; 15% off above 175 units."""
    base = 5.01
    if quantity > 175:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0174(quantity):
    """Price of SKU-0174 for `quantity` units; 16% off above 50 units."""
    base = 5.38
    if quantity > 50:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0175(quantity):
    """Price of SKU-0175 for `quantity` units; 10% off above 75 units."""
    base = 5.75
    if quantity > 75:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0176(quantity):
    """Price of SKU-0176 for `quantity` units; 11% off above 100 units."""
    base = 1.12
    if quantity > 100:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0177(quantity):
    """Price of SKU-0177 for `quantity` units; 12% off above 125 units."""
    base = 1.49
    if quantity > 125:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0178(quantity):
    """Price of SKU-0178 for `quantity` units; 13% off above 150 units."""
    base = 1.86
    if quantity > 150:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0179(quantity):
    """Price of SKU-0179 for `quantity` units; 14% off above 175 units."""
    base = 2.23
    if quantity > 175:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0180(quantity):
    """Price of SKU-0180 for `quantity` units; 15% off above 50 units."""
    base = 2.6
    if quantity > 50:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0181(quantity):
    """Price of SKU-0181 for `quantity` units; 16% off above 75 units."""
    base = 2.97
    if quantity > 75:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0182(quantity):
    """Price of SKU-0182 for `quantity` units; 10% off above 100 units."""
    base = 3.34
    if quantity > 100:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0183(quantity):
    """Price of SKU-0183 for `quantity` units; 11% off above 125 units."""
    base = 3.71
    if quantity > 125:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0184(quantity):
    """Price of SKU-0184 for `quantity` units; 12% off above 150 units."""
    base = 4.08
    if quantity > 150:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0185(quantity):
    """Price of SKU-0185 for `quantity` units; 13% off above 175 units."""
    base = 4.45
    if quantity > 175:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0186(quantity):
    """Price of SKU-0186 for `quantity` units; 14% off above 50 units."""
    base = 4.82
    if quantity > 50:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0187(quantity):
    """Price of SKU-0187 for `quantity` units; 15% off above 75 units."""
    base = 5.19
    if quantity > 75:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0188(quantity):
    """Price of SKU-0188 for `quantity` units; 16% off above 100 units."""
    base = 5.56
    if quantity > 100:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0189(quantity):
    """Price of SKU-0189 for `quantity` units; 10% off above 125 units."""
    base = 5.93
    if quantity > 125:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0190(quantity):
    """Price of SKU-0190 for `quantity` units; 11% off above 150 units."""
    base = 1.3
    if quantity > 150:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0191(quantity):
    """Price of SKU-0191 for `quantity` units; 12% off above 175 units."""
    base = 1.67
    if quantity > 175:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0192(quantity):
    """Price of SKU-0192 for `quantity` units; 13% off above 50 units."""
    base = 2.04
    if quantity > 50:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0193(quantity):
    """Price of SKU-0193 for `quantity` units; 14% off above 75 units."""
    base = 2.41
    if quantity > 75:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0194(quantity):
    """Price of SKU-0194 for `quantity` units; 15% off above 100 units."""
    base = 2.78
    if quantity > 100:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0195(quantity):
    """Price of SKU-0195 for `quantity` units; 16% off above 125 units."""
    base = 3.15
    if quantity > 125:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0196(quantity):
    """Price of SKU-0196 for `quantity` units; 10% off above 150 units."""
    base = 3.52
    if quantity > 150:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0197(quantity):
    """Price of SKU-0197 for `quantity` units; 11% off above 175 units."""
    base = 3.89
    if quantity > 175:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0198(quantity):
    """Price of SKU-0198 for `quantity` units; 12% off above 50 units."""
    base = 4.26
    if quantity > 50:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0199(quantity):
    """Price of SKU-0199 for `quantity` units; 13% off above 75 units."""
    base = 4.63
    if quantity > 75:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0200(quantity):
    """Price of SKU-0200 for `quantity` units; 14% off above 100 units."""
    base = 5.0
    if quantity > 100:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0201(quantity):
    """Price of SKU-0201 for `quantity` units; 15% off above 125 units."""
    base = 5.37
    if quantity > 125:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0202(quantity):
    """Price of SKU-0202 for `quantity` units; 16% off above 150 units."""
    base = 5.74
    if quantity > 150:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0203(quantity):
    """Price of SKU-0203 for `quantity` units; 10% off above 175 units."""
    base = 1.11
    if quantity > 175:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0204(quantity):
    """Price of SKU-0204 for `quantity` units; 11% off above 50 units."""
    base = 1.48
    if quantity > 50:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0205(quantity):
    """Price of SKU-0205 for `quantity` units; 12% off above 75 units."""
    base = 1.85
    if quantity > 75:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0206(quantity):
    """Price of SKU-0206 for `quantity` units; 13% off above 100 units."""
    base = 2.22
    if quantity > 100:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0207(quantity):
    """Price of SKU-0207 for `quantity` units; 14% off above 125 units."""
    base = 2.59
    if quantity > 125:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0208(quantity):
    """Price of SKU-0208 for `quantity` units; 15% off above 150 units."""
    base = 2.96
    if quantity > 150:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0209(quantity):
    """Price of SKU-0209 for `quantity` units; 16% off above 175 units."""
    base = 3.33
    if quantity > 175:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0210(quantity):
    """Price of SKU-0210 for `quantity` units; 10% off above 50 units."""
    base = 3.7
    if quantity > 50:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0211(quantity):
    """Price of SKU-0211 for `quantity` units; 11% off above 75 units."""
    base = 4.07
    if quantity > 75:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0212(quantity):
    """Price of SKU-0212 for `quantity` units; 12% off above 100 units."""
    base = 4.44
    if quantity > 100:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0213(quantity):
    """Price of SKU-0213 for `quantity` units; 13% off above 125 units."""
    base = 4.81
    if quantity > 125:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0214(quantity):
    """Price of SKU-0214 for `quantity` units; 14% off above 150 units."""
    base = 5.18
    if quantity > 150:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0215(quantity):
    """Price of SKU-0215 for `quantity` units; 15% off above 175 units."""
    base = 5.55
    if quantity > 175:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0216(quantity):
    """Price of SKU-0216 for `quantity` units; 16% off above 50 units."""
    base = 5.92
    if quantity > 50:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0217(quantity):
    """Price of SKU-0217 for `quantity` units; 10% off above 75 units."""
    base = 1.29
    if quantity > 75:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0218(quantity):
    """Price of SKU-0218 for `quantity` units; 11% off above 100 units."""
    base = 1.66
    if quantity > 100:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0219(quantity):
    """Price of SKU-0219 for `quantity` units; 12% off above 125 units."""
    base = 2.03
    if quantity > 125:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0220(quantity):
    """Price of SKU-0220 for `quantity` units; 13% off above 150 units."""
    base = 2.4
    if quantity > 150:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0221(quantity):
    """Price of SKU-0221 for `quantity` units; 14% off above 175 units."""
    base = 2.77
    if quantity > 175:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0222(quantity):
    """Price of SKU-0222 for `quantity` units; 15% off above 50 units."""
    base = 3.14
    if quantity > 50:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0223(quantity):
    """Price of SKU-0223 for `quantity` units; 16% off above 75 units."""
    base = 3.51
    if quantity > 75:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0224(quantity):
    """Price of SKU-0224 for `quantity` units; 10% off above 100 units."""
    base = 3.88
    if quantity > 100:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0225(quantity):
    """Price of SKU-0225 for `quantity` units; 11% off above 125 units."""
    base = 4.25
    if quantity > 125:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0226(quantity):
    """Price of SKU-0226 for `quantity` units; 12% off above 150 units."""
    base = 4.62
    if quantity > 150:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0227(quantity):
    """Price of SKU-0227 for `quantity` units; 13% off above 175 units."""
    base = 4.99
    if quantity > 175:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0228(quantity):
    """Price of SKU-0228 for `quantity` units; 14% off above 50 units."""
    base = 5.36
    if quantity > 50:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0229(quantity):
    """Price of SKU-0229 for `quantity` units; 15% off above 75 units."""
    base = 5.73
    if quantity > 75:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0230(quantity):
    """Price of SKU-0230 for `quantity` units; 16% off above 100 units."""
    base = 1.1
    if quantity > 100:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0231(quantity):
    """Price of SKU-0231 for `quantity` units; 10% off above 125 units."""
    base = 1.47
    if quantity > 125:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0232(quantity):
    """Price of SKU-0232 for `quantity` units; 11% off above 150 units."""
    base = 1.84
    if quantity > 150:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0233(quantity):
    """Price of SKU-0233 for `quantity` units; 12% off above 175 units."""
    base = 2.21
    if quantity > 175:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0234(quantity):
    """Price of SKU-0234 for `quantity` units; 13% off above 50 units."""
    base = 2.58
    if quantity > 50:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0235(quantity):
    """Price of SKU-0235 for `quantity` units; 14% off above 75 units."""
    base = 2.95
    if quantity > 75:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0236(quantity):
    """Price of SKU-0236 for `quantity` units; 15% off above 100 units."""
    base = 3.32
    if quantity > 100:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0237(quantity):
    """Price of SKU-0237 for `quantity` units; 16% off above 125 units."""
    base = 3.69
    if quantity > 125:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0238(quantity):
    """Price of SKU-0238 for `quantity` units; 10% off above 150 units."""
    base = 4.06
    if quantity > 150:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0239(quantity):
    """Price of SKU-0239 for `quantity` units; 11% off above 175 units."""
    base = 4.43
    if quantity > 175:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0240(quantity):
    """Price of SKU-0240 for `quantity` units; 12% off above 50 units."""
    base = 4.8
    if quantity > 50:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0241(quantity):
    """Price of SKU-0241 for `quantity` units; 13% off above 75 units."""
    base = 5.17
    if quantity > 75:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0242(quantity):
    """Price of SKU-0242 for `quantity` units; 14% off above 100 units."""
    base = 5.54
    if quantity > 100:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0243(quantity):
    """Price of SKU-0243 for `quantity` units; 15% off above 125 units."""
    base = 5.91
    if quantity > 125:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0244(quantity):
    """Price of SKU-0244 for `quantity` units; 16% off above 150 units."""
    base = 1.28
    if quantity > 150:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0245(quantity):
    """Price of SKU-0245 for `quantity` units; 10% off above 175 units."""
    base = 1.65
    if quantity > 175:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0246(quantity):
    """Price of SKU-0246 for `quantity` units; 11% off above 50 units."""
    base = 2.02
    if quantity > 50:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0247(quantity):
    """Price of SKU-0247 for `quantity` units; 12% off above 75 units."""
    base = 2.39
    if quantity > 75:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0248(quantity):
    """Price of SKU-0248 for `quantity` units; 13% off above 100 units."""
    base = 2.76
    if quantity > 100:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0249(quantity):
    """Price of SKU-0249 for `quantity` units; 14% off above 125 units."""
    base = 3.13
    if quantity > 125:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0250(quantity):
    """Price of SKU-0250 for `quantity` units; 15% off above 150 units."""
    base = 3.5
    if quantity > 150:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0251(quantity):
    """Price of SKU-0251 for `quantity` units; 16% off above 175 units."""
    base = 3.87
    if quantity > 175:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0252(quantity):
    """Price of SKU-0252 for `quantity` units; 10% off above 50 units."""
    base = 4.24
    if quantity > 50:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0253(quantity):
    """Price of SKU-0253 for `quantity` units; 11% off above 75 units."""
    base = 4.61
    if quantity > 75:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0254(quantity):
    """Price of SKU-0254 for `quantity` units; 12% off above 100 units."""
    base = 4.98
    if quantity > 100:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0255(quantity):
    """Price of SKU-0255 for `quantity` units; 13% off above 125 units."""
    base = 5.35
    if quantity > 125:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0256(quantity):
    """Price of SKU-0256 for `quantity` units; 14% off above 150 units."""
    base = 5.72
    if quantity > 150:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0257(quantity):
    """Price of SKU-0257 for `quantity` units; 15% off above 175 units."""
    base = 1.09
    if quantity > 175:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0258(quantity):
    """Price of SKU-0258 for `quantity` units; 16% off above 50 units."""
    base = 1.46
    if quantity > 50:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0259(quantity):
    """Price of SKU-0259 for `quantity` units; 10% off above 75 units."""
    base = 1.83
    if quantity > 75:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0260(quantity):
    """Price of SKU-0260 for `quantity` units; 11% off above 100 units."""
    base = 2.2
    if quantity > 100:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0261(quantity):
    """Price of SKU-0261 for `quantity` units; 12% off above 125 units."""
    base = 2.57
    if quantity > 125:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0262(quantity):
    """Price of SKU-0262 for `quantity` units; 13% off above 150 units."""
    base = 2.94
    if quantity > 150:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0263(quantity):
    """Price of SKU-0263 for `quantity` units; 14% off above 175 units."""
    base = 3.31
    if quantity > 175:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0264(quantity):
    """Price of SKU-0264 for `quantity` units; 15% off above 50 units."""
    base = 3.68
    if quantity > 50:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0265(quantity):
    """Price of SKU-0265 for `quantity` units; 16% off above 75 units."""
    base = 4.05
    if quantity > 75:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0266(quantity):
    """Price of SKU-0266 for `quantity` units; 10% off above 100 units."""
    base = 4.42
    if quantity > 100:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0267(quantity):
    """Price of SKU-0267 for `quantity` units; 11% off above 125 units."""
    base = 4.79
    if quantity > 125:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0268(quantity):
    """Price of SKU-0268 for `quantity` units; 12% off above 150 units."""
    base = 5.16
    if quantity > 150:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0269(quantity):
    """Price of SKU-0269 for `quantity` units; 13% off above 175 units."""
    base = 5.53
    if quantity > 175:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0270(quantity):
    """Price of SKU-0270 for `quantity` units; 14% off above 50 units."""
    base = 5.9
    if quantity > 50:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0271(quantity):
    """Price of SKU-0271 for `quantity` units; 15% off above 75 units."""
    base = 1.27
    if quantity > 75:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0272(quantity):
    """Price of SKU-0272 for `quantity` units; 16% off above 100 units."""
    base = 1.64
    if quantity > 100:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0273(quantity):
    """Price of SKU-0273 for `quantity` units; 10% off above 125 units."""
    base = 2.01
    if quantity > 125:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0274(quantity):
    """Price of SKU-0274 for `quantity` units; 11% off above 150 units."""
    base = 2.38
    if quantity > 150:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0275(quantity):
    """Price of SKU-0275 for `quantity` units; 12% off above 175 units."""
    base = 2.75
    if quantity > 175:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0276(quantity):
    """Price of SKU-0276 for `quantity` units; 13% off above 50 units."""
    base = 3.12
    if quantity > 50:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0277(quantity):
    """Price of SKU-0277 for `quantity` units; 14% off above 75 units."""
    base = 3.49
    if quantity > 75:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0278(quantity):
    """Price of SKU-0278 for `quantity` units; 15% off above 100 units."""
    base = 3.86
    if quantity > 100:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0279(quantity):
    """Price of SKU-0279 for `quantity` units; 16% off above 125 units."""
    base = 4.23
    if quantity > 125:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0280(quantity):
    """Price of SKU-0280 for `quantity` units; 10% off above 150 units."""
    base = 4.6
    if quantity > 150:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0281(quantity):
    """Price of SKU-0281 for `quantity` units; 11% off above 175 units."""
    base = 4.97
    if quantity > 175:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0282(quantity):
    """Price of SKU-0282 for `quantity` units; 12% off above 50 units."""
    base = 5.34
    if quantity > 50:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0283(quantity):
    """Price of SKU-0283 for `quantity` units; 13% off above 75 units."""
    base = 5.71
    if quantity > 75:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)

def unit_price_sku_0284(quantity):
    """Price of SKU-0284 for `quantity` units; 14% off above 100 units."""
    base = 1.08
    if quantity > 100:
        return round(base * quantity * 0.86, 2)
    return round(base * quantity, 2)

def unit_price_sku_0285(quantity):
    """Price of SKU-0285 for `quantity` units; 15% off above 125 units."""
    base = 1.45
    if quantity > 125:
        return round(base * quantity * 0.85, 2)
    return round(base * quantity, 2)

def unit_price_sku_0286(quantity):
    """Price of SKU-0286 for `quantity` units; 16% off above 150 units."""
    base = 1.82
    if quantity > 150:
        return round(base * quantity * 0.84, 2)
    return round(base * quantity, 2)

def unit_price_sku_0287(quantity):
    """Price of SKU-0287 for `quantity` units; 10% off above 175 units."""
    base = 2.19
    if quantity > 175:
        return round(base * quantity * 0.9, 2)
    return round(base * quantity, 2)

def unit_price_sku_0288(quantity):
    """Price of SKU-0288 for `quantity` units; 11% off above 50 units."""
    base = 2.56
    if quantity > 50:
        return round(base * quantity * 0.89, 2)
    return round(base * quantity, 2)

def unit_price_sku_0289(quantity):
    """Price of SKU-0289 for `quantity` units; 12% off above 75 units."""
    base = 2.93
    if quantity > 75:
        return round(base * quantity * 0.88, 2)
    return round(base * quantity, 2)

def unit_price_sku_0290(quantity):
    """Price of SKU-0290 for `quantity` units; 13% off above 100 units."""
    base = 3.3
    if quantity > 100:
        return round(base * quantity * 0.87, 2)
    return round(base * quantity, 2)
