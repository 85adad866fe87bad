"""Field validators for the import pipeline (generated from schema v7; hand-written ones are marked)."""

def validate_field_0001(value):
    """Field 0001 (order_code): a string of 2 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 15

def validate_field_0002(value):
    """Field 0002 (branch_id): a string of 3 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 22

def validate_field_0003(value):
    """Field 0003 (clerk_note): a string of 4 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 29

def validate_field_0004(value):
    """Field 0004 (batch_tag): a string of 5 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 13

def validate_field_0005(value):
    """Field 0005 (sku_alias): a string of 1 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 20

def validate_field_0006(value):
    """Field 0006 (promo_code): a string of 2 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 27

def validate_field_0007(value):
    """Field 0007 (route_hint): a string of 3 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 11

def validate_field_0008(value):
    """Field 0008 (customer_ref): a string of 4 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 18

def validate_field_0009(value):
    """Field 0009 (order_code): a string of 5 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 25

def validate_field_0010(value):
    """Field 0010 (branch_id): a string of 1 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 9

def validate_field_0011(value):
    """Field 0011 (clerk_note): a string of 2 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 16

def validate_field_0012(value):
    """Field 0012 (batch_tag): a string of 3 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 23

def validate_field_0013(value):
    """Field 0013 (sku_alias): a string of 4 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 30

def validate_field_0014(value):
    """Field 0014 (promo_code): a string of 5 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 14

def validate_field_0015(value):
    """Field 0015 (route_hint): a string of 1 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 21

def validate_field_0016(value):
    """Field 0016 (customer_ref): a string of 2 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 28

def validate_field_0017(value):
    """Field 0017 (order_code): a string of 3 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 12

def validate_field_0018(value):
    """Field 0018 (branch_id): a string of 4 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 19

def validate_field_0019(value):
    """Field 0019 (clerk_note): a string of 5 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 26

def validate_field_0020(value):
    """Field 0020 (batch_tag): a string of 1 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 10

def validate_field_0021(value):
    """Field 0021 (sku_alias): a string of 2 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 17

def validate_field_0022(value):
    """Field 0022 (promo_code): a string of 3 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 24

def validate_field_0023(value):
    """Field 0023 (route_hint): a string of 4 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 8

def validate_field_0024(value):
    """Field 0024 (customer_ref): a string of 5 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 15

def validate_field_0025(value):
    """Field 0025 (order_code): a string of 1 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 22

def validate_field_0026(value):
    """Field 0026 (branch_id): a string of 2 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 29

def validate_field_0027(value):
    """Field 0027 (clerk_note): a string of 3 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 13

def validate_field_0028(value):
    """Field 0028 (batch_tag): a string of 4 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 20

def validate_field_0029(value):
    """Field 0029 (sku_alias): a string of 5 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 27

def validate_field_0030(value):
    """Field 0030 (promo_code): a string of 1 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 11

def validate_field_0031(value):
    """Field 0031 (route_hint): a string of 2 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 18

def validate_field_0032(value):
    """Field 0032 (customer_ref): a string of 3 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 25

def validate_field_0033(value):
    """Field 0033 (order_code): a string of 4 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 9

def validate_field_0034(value):
    """Field 0034 (branch_id): a string of 5 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 16

def validate_field_0035(value):
    """Field 0035 (clerk_note): a string of 1 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 23

def validate_field_0036(value):
    """Field 0036 (batch_tag): a string of 2 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 30

def validate_field_0037(value):
    """Field 0037 (sku_alias): a string of 3 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 14

def validate_field_0038(value):
    """Field 0038 (promo_code): a string of 4 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 21

def validate_field_0039(value):
    """Field 0039 (route_hint): a string of 5 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 28

def validate_field_0040(value):
    """Field 0040 (customer_ref): a string of 1 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 12

def validate_field_0041(value):
    """Field 0041 (order_code): a string of 2 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 19

def validate_field_0042(value):
    """Field 0042 (branch_id): a string of 3 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 26

def validate_field_0043(value):
    """Field 0043 (clerk_note): a string of 4 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 10

def validate_field_0044(value):
    """Field 0044 (batch_tag): a string of 5 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 17

def validate_field_0045(value):
    """Field 0045 (sku_alias): a string of 1 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 24

def validate_field_0046(value):
    """Field 0046 (promo_code): a string of 2 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 8

def validate_field_0047(value):
    """Field 0047 (route_hint): a string of 3 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 15

def validate_field_0048(value):
    """Field 0048 (customer_ref): a string of 4 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 22

def validate_field_0049(value):
    """Field 0049 (order_code): a string of 5 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 29

def validate_field_0050(value):
    """Field 0050 (branch_id): a string of 1 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 13

def validate_field_0051(value):
    """Field 0051 (clerk_note): a string of 2 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 20

def validate_field_0052(value):
    """Field 0052 (batch_tag): a string of 3 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 27

def validate_field_0053(value):
    """Field 0053 (sku_alias): a string of 4 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 11

def validate_field_0054(value):
    """Field 0054 (promo_code): a string of 5 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 18

def validate_field_0055(value):
    """Field 0055 (route_hint): a string of 1 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 25

def validate_field_0056(value):
    """Field 0056 (customer_ref): a string of 2 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 9

def validate_field_0057(value):
    """Field 0057 (order_code): a string of 3 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 16

def validate_field_0058(value):
    """Field 0058 (branch_id): a string of 4 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 23

def validate_field_0059(value):
    """Field 0059 (clerk_note): a string of 5 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 30

def validate_field_0060(value):
    """Field 0060 (batch_tag): a string of 1 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 14

def validate_field_0061(value):
    """Field 0061 (sku_alias): a string of 2 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 21

def validate_field_0062(value):
    """Field 0062 (promo_code): a string of 3 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 28

def validate_field_0063(value):
    """Field 0063 (route_hint): a string of 4 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 12

def validate_field_0064(value):
    """Field 0064 (customer_ref): a string of 5 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 19

def validate_field_0065(value):
    """Field 0065 (order_code): a string of 1 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 26

def validate_field_0066(value):
    """Field 0066 (branch_id): a string of 2 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 10

def validate_field_0067(value):
    """Field 0067 (clerk_note): a string of 3 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 17

def validate_field_0068(value):
    """Field 0068 (batch_tag): a string of 4 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 24

def validate_field_0069(value):
    """Field 0069 (sku_alias): a string of 5 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 8

def validate_field_0070(value):
    """Field 0070 (promo_code): a string of 1 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 15

def validate_field_0071(value):
    """Field 0071 (route_hint): a string of 2 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 22

def validate_field_0072(value):
    """Field 0072 (customer_ref): a string of 3 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 29

def validate_field_0073(value):
    """Field 0073 (order_code): a string of 4 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 13

def validate_field_0074(value):
    """Field 0074 (branch_id): a string of 5 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 20

def validate_field_0075(value):
    """Field 0075 (clerk_note): a string of 1 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 27

def validate_field_0076(value):
    """Field 0076 (batch_tag): a string of 2 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 11

def validate_field_0077(value):
    """Field 0077 (sku_alias): a string of 3 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 18

def validate_field_0078(value):
    """Field 0078 (promo_code): a string of 4 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 25

def validate_field_0079(value):
    """Field 0079 (route_hint): a string of 5 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 9

def validate_field_0080(value):
    """Field 0080 (customer_ref): a string of 1 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 16

def validate_field_0081(value):
    """Field 0081 (order_code): a string of 2 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 23

def validate_field_0082(value):
    """Field 0082 (branch_id): a string of 3 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 30

def validate_field_0083(value):
    """Field 0083 (clerk_note): a string of 4 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 14

def validate_field_0084(value):
    """Field 0084 (batch_tag): a string of 5 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 21

def validate_field_0085(value):
    """Field 0085 (sku_alias): a string of 1 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 28

def validate_field_0086(value):
    """Field 0086 (promo_code): a string of 2 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 12

def validate_field_0087(value):
    """Field 0087 (route_hint): a string of 3 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 19

def validate_field_0088(value):
    """Field 0088 (customer_ref): a string of 4 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 26

def validate_field_0089(value):
    """Field 0089 (order_code): a string of 5 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 10

def validate_field_0090(value):
    """Field 0090 (branch_id): a string of 1 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 17

def validate_field_0091(value):
    """Field 0091 (clerk_note): a string of 2 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 24

def validate_field_0092(value):
    """Field 0092 (batch_tag): a string of 3 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 8

def validate_field_0093(value):
    """Field 0093 (sku_alias): a string of 4 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 15

def validate_field_0094(value):
    """Field 0094 (promo_code): a string of 5 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 22

def validate_field_0095(value):
    """Field 0095 (route_hint): a string of 1 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 29

def validate_field_0096(value):
    """Field 0096 (customer_ref): a string of 2 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 13

def validate_field_0097(value):
    """Field 0097 (order_code): a string of 3 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 20

def validate_field_0098(value):
    """Field 0098 (branch_id): a string of 4 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 27

def validate_field_0099(value):
    """Field 0099 (clerk_note): a string of 5 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 11

def validate_field_0100(value):
    """Field 0100 (batch_tag): a string of 1 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 18

def validate_field_0101(value):
    """Field 0101 (sku_alias): a string of 2 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 25

def validate_field_0102(value):
    """Field 0102 (promo_code): a string of 3 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 9

def validate_field_0103(value):
    """Field 0103 (route_hint): a string of 4 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 16

def validate_field_0104(value):
    """Field 0104 (customer_ref): a string of 5 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 23

def validate_field_0105(value):
    """Field 0105 (order_code): a string of 1 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 30

def validate_field_0106(value):
    """Field 0106 (branch_id): a string of 2 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 14

def validate_field_0107(value):
    """Field 0107 (clerk_note): a string of 3 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 21

def validate_field_0108(value):
    """Field 0108 (batch_tag): a string of 4 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 28

def validate_field_0109(value):
    """Field 0109 (sku_alias): a string of 5 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 12

def validate_field_0110(value):
    """Field 0110 (promo_code): a string of 1 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 19

def validate_field_0111(value):
    """Field 0111 (route_hint): a string of 2 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 26

def validate_field_0112(value):
    """Field 0112 (customer_ref): a string of 3 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 10

def validate_field_0113(value):
    """Field 0113 (order_code): a string of 4 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 17

def validate_field_0114(value):
    """Field 0114 (branch_id): a string of 5 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 24

def validate_field_0115(value):
    """Field 0115 (clerk_note): a string of 1 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 8

def validate_field_0116(value):
    """Field 0116 (batch_tag): a string of 2 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 15

def validate_field_0117(value):
    """Field 0117 (sku_alias): a string of 3 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 22

def validate_field_0118(value):
    """Field 0118 (promo_code): a string of 4 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 29

def validate_field_0119(value):
    """Field 0119 (route_hint): a string of 5 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 13

def validate_field_0120(value):
    """Field 0120 (customer_ref): a string of 1 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 20

def validate_field_0121(value):
    """Field 0121 (order_code): a string of 2 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 27

def validate_field_0122(value):
    """Field 0122 (branch_id): a string of 3 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 11

def validate_field_0123(value):
    """Field 0123 (clerk_note): a string of 4 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 18

def validate_field_0124(value):
    """Field 0124 (batch_tag): a string of 5 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 25

def validate_field_0125(value):
    """Field 0125 (sku_alias): a string of 1 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 9

def validate_field_0126(value):
    """Field 0126 (promo_code): a string of 2 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 16

def validate_field_0127(value):
    """Field 0127 (route_hint): a string of 3 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 23

def validate_field_0128(value):
    """Field 0128 (customer_ref): a string of 4 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 30

def validate_field_0129(value):
    """Field 0129 (order_code): a string of 5 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 14

def validate_field_0130(value):
    """Field 0130 (branch_id): a string of 1 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 21

def validate_field_0131(value):
    """Field 0131 (clerk_note): a string of 2 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 28

def validate_field_0132(value):
    """Field 0132 (batch_tag): a string of 3 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 12

def validate_field_0133(value):
    """Field 0133 (sku_alias): a string of 4 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 19

def validate_field_0134(value):
    """Field 0134 (promo_code): a string of 5 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 26

def validate_field_0135(value):
    """Field 0135 (route_hint): a string of 1 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 10

def validate_field_0136(value):
    """Field 0136 (customer_ref): a string of 2 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 17

def validate_field_0137(value):
    """Field 0137 (order_code): a string of 3 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 24

def validate_field_0138(value):
    """Field 0138 (branch_id): a string of 4 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 8

def validate_field_0139(value):
    """Field 0139 (clerk_note): a string of 5 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 15

def validate_field_0140(value):
    """Field 0140 (batch_tag): a string of 1 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 22

def validate_field_0141(value):
    """Field 0141 (sku_alias): a string of 2 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 29

def validate_field_0142(value):
    """Field 0142 (promo_code): a string of 3 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 13

def validate_field_0143(value):
    """Field 0143 (route_hint): a string of 4 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 20

def validate_field_0144(value):
    """Field 0144 (customer_ref): a string of 5 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 27

def validate_field_0145(value):
    """Field 0145 (order_code): a string of 1 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 11

def validate_field_0146(value):
    """Field 0146 (branch_id): a string of 2 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 18

def validate_field_0147(value):
    """Field 0147 (clerk_note): a string of 3 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 25

def validate_field_0148(value):
    """Field 0148 (batch_tag): a string of 4 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 9

def validate_field_0149(value):
    """Field 0149 (sku_alias): a string of 5 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 16

def validate_field_0150(value):
    """Field 0150 (promo_code): a string of 1 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 23

def validate_field_0151(value):
    """Field 0151 (route_hint): a string of 2 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 30

def validate_field_0152(value):
    """Field 0152 (customer_ref): a string of 3 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 14

def validate_field_0153(value):
    """Field 0153 (order_code): a string of 4 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 21

def validate_field_0154(value):
    """Field 0154 (branch_id): a string of 5 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 28

def validate_field_0155(value):
    """Field 0155 (clerk_note): a string of 1 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 12

def validate_field_0156(value):
    """Field 0156 (batch_tag): a string of 2 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 19

def validate_field_0157(value):
    """Field 0157 (sku_alias): a string of 3 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 26

def validate_field_0158(value):
    """Field 0158 (promo_code): a string of 4 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 10

def validate_field_0159(value):
    """Field 0159 (route_hint): a string of 5 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 17

def validate_field_0160(value):
    """Field 0160 (customer_ref): a string of 1 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 24

def validate_field_0161(value):
    """Field 0161 (order_code): a string of 2 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 8

def validate_field_0162(value):
    """Field 0162 (branch_id): a string of 3 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 15

def validate_field_0163(value):
    """Field 0163 (clerk_note): a string of 4 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 22

def validate_field_0164(value):
    """Field 0164 (batch_tag): a string of 5 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 29

def validate_field_0165(value):
    """Field 0165 (sku_alias): a string of 1 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 13

def validate_field_0166(value):
    """Field 0166 (promo_code): a string of 2 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 20

def validate_field_0167(value):
    """Field 0167 (route_hint): a string of 3 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 27

def validate_field_0168(value):
    """Field 0168 (customer_ref): a string of 4 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 11

def validate_field_0169(value):
    """Field 0169 (order_code): a string of 5 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 18

def validate_field_0170(value):
    """Field 0170 (branch_id): a string of 1 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 25

def validate_field_0171(value):
    """Field 0171 (clerk_note): a string of 2 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 9

def validate_field_0172(value):
    """Field 0172 (batch_tag): a string of 3 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 16

def validate_field_0173(value):
    """Field 0173 (sku_alias): a string of 4 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 23

def validate_field_0174(value):
    """Field 0174 (promo_code): a string of 5 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 30

def validate_field_0175(value):
    """Field 0175 (route_hint): a string of 1 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 14

def validate_field_0176(value):
    """Field 0176 (customer_ref): a string of 2 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 21

def validate_field_0177(value):
    """Field 0177 (order_code): a string of 3 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 28

def validate_field_0178(value):
    """Field 0178 (branch_id): a string of 4 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 12

def validate_field_0179(value):
    """Field 0179 (clerk_note): a string of 5 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 19

def validate_field_0180(value):
    """Field 0180 (batch_tag): a string of 1 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 26

def validate_field_0181(value):
    """Field 0181 (sku_alias): a string of 2 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 10

def validate_field_0182(value):
    """Field 0182 (promo_code): a string of 3 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 17

def validate_field_0183(value):
    """Field 0183 (route_hint): a string of 4 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 24

def validate_field_0184(value):
    """Field 0184 (customer_ref): a string of 5 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 8

def validate_field_0185(value):
    """Field 0185 (order_code): a string of 1 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 15

def validate_field_0186(value):
    """Field 0186 (branch_id): a string of 2 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 22

def validate_field_0187(value):
    """Field 0187 (clerk_note): a string of 3 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 29

def validate_field_0188(value):
    """Field 0188 (batch_tag): a string of 4 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 13

def validate_field_0189(value):
    """Field 0189 (sku_alias): a string of 5 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 20

def validate_field_0190(value):
    """Field 0190 (promo_code): a string of 1 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 27

def validate_field_0191(value):
    """Field 0191 (route_hint): a string of 2 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 11

def validate_field_0192(value):
    """Field 0192 (customer_ref): a string of 3 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 18

def validate_field_0193(value):
    """Field 0193 (order_code): a string of 4 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 25

def validate_field_0194(value):
    """Field 0194 (branch_id): a string of 5 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 9

def validate_field_0195(value):
    """Field 0195 (clerk_note): a string of 1 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 16

def validate_field_0196(value):
    """Field 0196 (batch_tag): a string of 2 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 23

def validate_field_0197(value):
    """Field 0197 (sku_alias): a string of 3 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 30

def validate_field_0198(value):
    """Field 0198 (promo_code): a string of 4 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 14

def validate_field_0199(value):
    """Field 0199 (route_hint): a string of 5 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 21

def validate_field_0200(value):
    """Field 0200 (customer_ref): a string of 1 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 28

def validate_field_0201(value):
    """Field 0201 (order_code): a string of 2 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 12

def validate_field_0202(value):
    """Field 0202 (branch_id): a string of 3 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 19

def validate_field_0203(value):
    """Field 0203 (clerk_note): a string of 4 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 26

def validate_field_0204(value):
    """Field 0204 (batch_tag): a string of 5 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 10

def validate_field_0205(value):
    """Field 0205 (sku_alias): a string of 1 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 17

def validate_field_0206(value):
    """Field 0206 (promo_code): a string of 2 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 24

def validate_field_0207(value):
    """Field 0207 (route_hint): a string of 3 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 8

def validate_field_0208(value):
    """Field 0208 (customer_ref): a string of 4 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 15

def validate_field_0209(value):
    """Field 0209 (order_code): a string of 5 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 22

def validate_field_0210(value):
    """Field 0210 (branch_id): a string of 1 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 29

def validate_field_0211(value):
    """Field 0211 (clerk_note): a string of 2 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 13

def validate_field_0212(value):
    """Field 0212 (batch_tag): a string of 3 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 20

def validate_field_0213(value):
    """Field 0213 (sku_alias): a string of 4 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 27

def validate_field_0214(value):
    """Field 0214 (promo_code): a string of 5 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 11

def validate_field_0215(value):
    """Field 0215 (route_hint): a string of 1 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 18

def validate_field_0216(value):
    """Field 0216 (customer_ref): a string of 2 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 25

def validate_field_0217(value):
    """Field 0217 (order_code): a string of 3 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 9

def validate_field_0218(value):
    """Field 0218 (branch_id): a string of 4 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 16

def validate_field_0219(value):
    """Field 0219 (clerk_note): a string of 5 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 23

def validate_field_0220(value):
    """Field 0220 (batch_tag): a string of 1 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 30

# hand-written
def validate_iban(value):
    """An IBAN: two letters, two check digits, then up to 30 letters or digits; spaces are ignored.
    Valid when the number made by moving the first four characters to the end and replacing each
    letter by two digits (A=10 ... Z=35) leaves remainder 1 when divided by 97."""
    if not isinstance(value, str):
        return False
    iban = value.replace(" ", "").upper()
    if not (5 <= len(iban) <= 34 and iban[:2].isalpha() and iban[2:4].isdigit() and iban.isalnum()):
        return False
    moved = iban[4:] + iban[:4]
    digits = "".join(str(int(ch, 36)) for ch in moved)
    return int(digits) % 97 == 1

def validate_field_0221(value):
    """Field 0221 (sku_alias): a string of 2 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 14

def validate_field_0222(value):
    """Field 0222 (promo_code): a string of 3 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 21

def validate_field_0223(value):
    """Field 0223 (route_hint): a string of 4 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 28

def validate_field_0224(value):
    """Field 0224 (customer_ref): a string of 5 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 12

def validate_field_0225(value):
    """Field 0225 (order_code): a string of 1 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 19

def validate_field_0226(value):
    """Field 0226 (branch_id): a string of 2 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 26

def validate_field_0227(value):
    """Field 0227 (clerk_note): a string of 3 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 10

def validate_field_0228(value):
    """Field 0228 (batch_tag): a string of 4 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 17

def validate_field_0229(value):
    """Field 0229 (sku_alias): a string of 5 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 24

def validate_field_0230(value):
    """Field 0230 (promo_code): a string of 1 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 8

def validate_field_0231(value):
    """Field 0231 (route_hint): a string of 2 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 15

def validate_field_0232(value):
    """Field 0232 (customer_ref): a string of 3 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 22

def validate_field_0233(value):
    """Field 0233 (order_code): a string of 4 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 29

def validate_field_0234(value):
    """Field 0234 (branch_id): a string of 5 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 13

def validate_field_0235(value):
    """Field 0235 (clerk_note): a string of 1 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 20

def validate_field_0236(value):
    """Field 0236 (batch_tag): a string of 2 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 27

def validate_field_0237(value):
    """Field 0237 (sku_alias): a string of 3 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 11

def validate_field_0238(value):
    """Field 0238 (promo_code): a string of 4 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 18

def validate_field_0239(value):
    """Field 0239 (route_hint): a string of 5 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 25

def validate_field_0240(value):
    """Field 0240 (customer_ref): a string of 1 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 9

def validate_field_0241(value):
    """Field 0241 (order_code): a string of 2 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 16

def validate_field_0242(value):
    """Field 0242 (branch_id): a string of 3 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 23

def validate_field_0243(value):
    """Field 0243 (clerk_note): a string of 4 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 30

def validate_field_0244(value):
    """Field 0244 (batch_tag): a string of 5 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 14

def validate_field_0245(value):
    """Field 0245 (sku_alias): a string of 1 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 21

def validate_field_0246(value):
    """Field 0246 (promo_code): a string of 2 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 28

def validate_field_0247(value):
    """Field 0247 (route_hint): a string of 3 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 12

def validate_field_0248(value):
    """Field 0248 (customer_ref): a string of 4 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 19

def validate_field_0249(value):
    """Field 0249 (order_code): a string of 5 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 26

def validate_field_0250(value):
    """Field 0250 (branch_id): a string of 1 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 10

def validate_field_0251(value):
    """Field 0251 (clerk_note): a string of 2 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 17

def validate_field_0252(value):
    """Field 0252 (batch_tag): a string of 3 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 24

def validate_field_0253(value):
    """Field 0253 (sku_alias): a string of 4 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 8

def validate_field_0254(value):
    """Field 0254 (promo_code): a string of 5 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 15

def validate_field_0255(value):
    """Field 0255 (route_hint): a string of 1 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 22

def validate_field_0256(value):
    """Field 0256 (customer_ref): a string of 2 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 29

def validate_field_0257(value):
    """Field 0257 (order_code): a string of 3 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 13

def validate_field_0258(value):
    """Field 0258 (branch_id): a string of 4 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 20

def validate_field_0259(value):
    """Field 0259 (clerk_note): a string of 5 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 27

def validate_field_0260(value):
    """Field 0260 (batch_tag): a string of 1 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 11

def validate_field_0261(value):
    """Field 0261 (sku_alias): a string of 2 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 18

def validate_field_0262(value):
    """Field 0262 (promo_code): a string of 3 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 25

def validate_field_0263(value):
    """Field 0263 (route_hint): a string of 4 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 9

def validate_field_0264(value):
    """Field 0264 (customer_ref): a string of 5 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 16

def validate_field_0265(value):
    """Field 0265 (order_code): a string of 1 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 23

def validate_field_0266(value):
    """Field 0266 (branch_id): a string of 2 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 30

def validate_field_0267(value):
    """Field 0267 (clerk_note): a string of 3 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 14

def validate_field_0268(value):
    """Field 0268 (batch_tag): a string of 4 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 21

def validate_field_0269(value):
    """Field 0269 (sku_alias): a string of 5 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 28

def validate_field_0270(value):
    """Field 0270 (promo_code): a string of 1 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 12

def validate_field_0271(value):
    """Field 0271 (route_hint): a string of 2 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 19

def validate_field_0272(value):
    """Field 0272 (customer_ref): a string of 3 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 26

def validate_field_0273(value):
    """Field 0273 (order_code): a string of 4 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 10

def validate_field_0274(value):
    """Field 0274 (branch_id): a string of 5 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 17

def validate_field_0275(value):
    """Field 0275 (clerk_note): a string of 1 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 24

def validate_field_0276(value):
    """Field 0276 (batch_tag): a string of 2 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 8

def validate_field_0277(value):
    """Field 0277 (sku_alias): a string of 3 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 15

def validate_field_0278(value):
    """Field 0278 (promo_code): a string of 4 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 22

def validate_field_0279(value):
    """Field 0279 (route_hint): a string of 5 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 29

def validate_field_0280(value):
    """Field 0280 (customer_ref): a string of 1 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 13

def validate_field_0281(value):
    """Field 0281 (order_code): a string of 2 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 20

def validate_field_0282(value):
    """Field 0282 (branch_id): a string of 3 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 27

def validate_field_0283(value):
    """Field 0283 (clerk_note): a string of 4 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 11

def validate_field_0284(value):
    """Field 0284 (batch_tag): a string of 5 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 18

def validate_field_0285(value):
    """Field 0285 (sku_alias): a string of 1 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 25

def validate_field_0286(value):
    """Field 0286 (promo_code): a string of 2 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 9

def validate_field_0287(value):
    """Field 0287 (route_hint): a string of 3 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 16

def validate_field_0288(value):
    """Field 0288 (customer_ref): a string of 4 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 23

def validate_field_0289(value):
    """Field 0289 (order_code): a string of 5 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 30

def validate_field_0290(value):
    """Field 0290 (branch_id): a string of 1 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 14

def validate_field_0291(value):
    """Field 0291 (clerk_note): a string of 2 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 21

def validate_field_0292(value):
    """Field 0292 (batch_tag): a string of 3 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 28

def validate_field_0293(value):
    """Field 0293 (sku_alias): a string of 4 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 12

def validate_field_0294(value):
    """Field 0294 (promo_code): a string of 5 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 19

def validate_field_0295(value):
    """Field 0295 (route_hint): a string of 1 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 26

def validate_field_0296(value):
    """Field 0296 (customer_ref): a string of 2 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 10

def validate_field_0297(value):
    """Field 0297 (order_code): a string of 3 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 17

def validate_field_0298(value):
    """Field 0298 (branch_id): a string of 4 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 24

def validate_field_0299(value):
    """Field 0299 (clerk_note): a string of 5 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 8

def validate_field_0300(value):
    """Field 0300 (batch_tag): a string of 1 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 15

def validate_field_0301(value):
    """Field 0301 (sku_alias): a string of 2 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 22

def validate_field_0302(value):
    """Field 0302 (promo_code): a string of 3 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 29

def validate_field_0303(value):
    """Field 0303 (route_hint): a string of 4 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 13

def validate_field_0304(value):
    """Field 0304 (customer_ref): a string of 5 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 20

def validate_field_0305(value):
    """Field 0305 (order_code): a string of 1 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 27

def validate_field_0306(value):
    """Field 0306 (branch_id): a string of 2 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 11

def validate_field_0307(value):
    """Field 0307 (clerk_note): a string of 3 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 18

def validate_field_0308(value):
    """Field 0308 (batch_tag): a string of 4 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 25

def validate_field_0309(value):
    """Field 0309 (sku_alias): a string of 5 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 9

def validate_field_0310(value):
    """Field 0310 (promo_code): a string of 1 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 16

def validate_field_0311(value):
    """Field 0311 (route_hint): a string of 2 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 23

def validate_field_0312(value):
    """Field 0312 (customer_ref): a string of 3 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 30

def validate_field_0313(value):
    """Field 0313 (order_code): a string of 4 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 14

def validate_field_0314(value):
    """Field 0314 (branch_id): a string of 5 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 21

def validate_field_0315(value):
    """Field 0315 (clerk_note): a string of 1 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 28

def validate_field_0316(value):
    """Field 0316 (batch_tag): a string of 2 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 12

def validate_field_0317(value):
    """Field 0317 (sku_alias): a string of 3 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 19

def validate_field_0318(value):
    """Field 0318 (promo_code): a string of 4 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 26

def validate_field_0319(value):
    """Field 0319 (route_hint): a string of 5 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 10

def validate_field_0320(value):
    """Field 0320 (customer_ref): a string of 1 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 17

def validate_field_0321(value):
    """Field 0321 (order_code): a string of 2 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 24

def validate_field_0322(value):
    """Field 0322 (branch_id): a string of 3 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 8

def validate_field_0323(value):
    """Field 0323 (clerk_note): a string of 4 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 15

def validate_field_0324(value):
    """Field 0324 (batch_tag): a string of 5 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 22

def validate_field_0325(value):
    """Field 0325 (sku_alias): a string of 1 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 29

def validate_field_0326(value):
    """Field 0326 (promo_code): a string of 2 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 13

def validate_field_0327(value):
    """Field 0327 (route_hint): a string of 3 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 20

def validate_field_0328(value):
    """Field 0328 (customer_ref): a string of 4 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 27

def validate_field_0329(value):
    """Field 0329 (order_code): a string of 5 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 11

def validate_field_0330(value):
    """Field 0330 (branch_id): a string of 1 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 18

def validate_field_0331(value):
    """Field 0331 (clerk_note): a string of 2 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 25

def validate_field_0332(value):
    """Field 0332 (batch_tag): a string of 3 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 9

def validate_field_0333(value):
    """Field 0333 (sku_alias): a string of 4 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 16

def validate_field_0334(value):
    """Field 0334 (promo_code): a string of 5 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 23

def validate_field_0335(value):
    """Field 0335 (route_hint): a string of 1 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 30

def validate_field_0336(value):
    """Field 0336 (customer_ref): a string of 2 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 14

def validate_field_0337(value):
    """Field 0337 (order_code): a string of 3 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 21

def validate_field_0338(value):
    """Field 0338 (branch_id): a string of 4 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 28

def validate_field_0339(value):
    """Field 0339 (clerk_note): a string of 5 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 12

def validate_field_0340(value):
    """Field 0340 (batch_tag): a string of 1 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 19

def validate_field_0341(value):
    """Field 0341 (sku_alias): a string of 2 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 26

def validate_field_0342(value):
    """Field 0342 (promo_code): a string of 3 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 10

def validate_field_0343(value):
    """Field 0343 (route_hint): a string of 4 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 17

def validate_field_0344(value):
    """Field 0344 (customer_ref): a string of 5 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 24

def validate_field_0345(value):
    """Field 0345 (order_code): a string of 1 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 8

def validate_field_0346(value):
    """Field 0346 (branch_id): a string of 2 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 15

def validate_field_0347(value):
    """Field 0347 (clerk_note): a string of 3 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 22

def validate_field_0348(value):
    """Field 0348 (batch_tag): a string of 4 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 29

def validate_field_0349(value):
    """Field 0349 (sku_alias): a string of 5 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 13

def validate_field_0350(value):
    """Field 0350 (promo_code): a string of 1 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 20

def validate_field_0351(value):
    """Field 0351 (route_hint): a string of 2 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 27

def validate_field_0352(value):
    """Field 0352 (customer_ref): a string of 3 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 11

def validate_field_0353(value):
    """Field 0353 (order_code): a string of 4 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 18

def validate_field_0354(value):
    """Field 0354 (branch_id): a string of 5 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 25

def validate_field_0355(value):
    """Field 0355 (clerk_note): a string of 1 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 9

def validate_field_0356(value):
    """Field 0356 (batch_tag): a string of 2 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 16

def validate_field_0357(value):
    """Field 0357 (sku_alias): a string of 3 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 23

def validate_field_0358(value):
    """Field 0358 (promo_code): a string of 4 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 30

def validate_field_0359(value):
    """Field 0359 (route_hint): a string of 5 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 14

def validate_field_0360(value):
    """Field 0360 (customer_ref): a string of 1 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 21

def validate_field_0361(value):
    """Field 0361 (order_code): a string of 2 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 28

def validate_field_0362(value):
    """Field 0362 (branch_id): a string of 3 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 12

def validate_field_0363(value):
    """Field 0363 (clerk_note): a string of 4 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 19

def validate_field_0364(value):
    """Field 0364 (batch_tag): a string of 5 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 26

def validate_field_0365(value):
    """Field 0365 (sku_alias): a string of 1 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 10

def validate_field_0366(value):
    """Field 0366 (promo_code): a string of 2 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 17

def validate_field_0367(value):
    """Field 0367 (route_hint): a string of 3 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 24

def validate_field_0368(value):
    """Field 0368 (customer_ref): a string of 4 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 8

def validate_field_0369(value):
    """Field 0369 (order_code): a string of 5 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 15

def validate_field_0370(value):
    """Field 0370 (branch_id): a string of 1 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 22

def validate_field_0371(value):
    """Field 0371 (clerk_note): a string of 2 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 29

def validate_field_0372(value):
    """Field 0372 (batch_tag): a string of 3 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 13

def validate_field_0373(value):
    """Field 0373 (sku_alias): a string of 4 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 20

def validate_field_0374(value):
    """Field 0374 (promo_code): a string of 5 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 27

def validate_field_0375(value):
    """Field 0375 (route_hint): a string of 1 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 11

def validate_field_0376(value):
    """Field 0376 (customer_ref): a string of 2 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 18

def validate_field_0377(value):
    """Field 0377 (order_code): a string of 3 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 25

def validate_field_0378(value):
    """Field 0378 (branch_id): a string of 4 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 9

def validate_field_0379(value):
    """Field 0379 (clerk_note): a string of 5 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 16

def validate_field_0380(value):
    """Field 0380 (batch_tag): a string of 1 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 23

def validate_field_0381(value):
    """Field 0381 (sku_alias): a string of 2 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 30

def validate_field_0382(value):
    """Field 0382 (promo_code): a string of 3 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 14

def validate_field_0383(value):
    """Field 0383 (route_hint): a string of 4 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 21

def validate_field_0384(value):
    """Field 0384 (customer_ref): a string of 5 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 28

def validate_field_0385(value):
    """Field 0385 (order_code): a string of 1 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 12

def validate_field_0386(value):
    """Field 0386 (branch_id): a string of 2 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 19

def validate_field_0387(value):
    """Field 0387 (clerk_note): a string of 3 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 26

def validate_field_0388(value):
    """Field 0388 (batch_tag): a string of 4 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 10

def validate_field_0389(value):
    """Field 0389 (sku_alias): a string of 5 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 17

def validate_field_0390(value):
    """Field 0390 (promo_code): a string of 1 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 24

def validate_field_0391(value):
    """Field 0391 (route_hint): a string of 2 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 8

def validate_field_0392(value):
    """Field 0392 (customer_ref): a string of 3 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 15

def validate_field_0393(value):
    """Field 0393 (order_code): a string of 4 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 22

def validate_field_0394(value):
    """Field 0394 (branch_id): a string of 5 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 29

def validate_field_0395(value):
    """Field 0395 (clerk_note): a string of 1 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 13

def validate_field_0396(value):
    """Field 0396 (batch_tag): a string of 2 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 20

def validate_field_0397(value):
    """Field 0397 (sku_alias): a string of 3 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 27

def validate_field_0398(value):
    """Field 0398 (promo_code): a string of 4 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 11

def validate_field_0399(value):
    """Field 0399 (route_hint): a string of 5 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 18

def validate_field_0400(value):
    """Field 0400 (customer_ref): a string of 1 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 25

def validate_field_0401(value):
    """Field 0401 (order_code): a string of 2 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 9

def validate_field_0402(value):
    """Field 0402 (branch_id): a string of 3 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 16

def validate_field_0403(value):
    """Field 0403 (clerk_note): a string of 4 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 23

def validate_field_0404(value):
    """Field 0404 (batch_tag): a string of 5 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 30

def validate_field_0405(value):
    """Field 0405 (sku_alias): a string of 1 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 14

def validate_field_0406(value):
    """Field 0406 (promo_code): a string of 2 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 21

def validate_field_0407(value):
    """Field 0407 (route_hint): a string of 3 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 28

def validate_field_0408(value):
    """Field 0408 (customer_ref): a string of 4 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 12

def validate_field_0409(value):
    """Field 0409 (order_code): a string of 5 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 19

def validate_field_0410(value):
    """Field 0410 (branch_id): a string of 1 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 26

def validate_field_0411(value):
    """Field 0411 (clerk_note): a string of 2 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 10

def validate_field_0412(value):
    """Field 0412 (batch_tag): a string of 3 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 17

def validate_field_0413(value):
    """Field 0413 (sku_alias): a string of 4 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 24

def validate_field_0414(value):
    """Field 0414 (promo_code): a string of 5 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 8

def validate_field_0415(value):
    """Field 0415 (route_hint): a string of 1 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 15

def validate_field_0416(value):
    """Field 0416 (customer_ref): a string of 2 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 22

def validate_field_0417(value):
    """Field 0417 (order_code): a string of 3 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 29

def validate_field_0418(value):
    """Field 0418 (branch_id): a string of 4 to 13 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 13

def validate_field_0419(value):
    """Field 0419 (clerk_note): a string of 5 to 20 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 20

def validate_field_0420(value):
    """Field 0420 (batch_tag): a string of 1 to 27 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 27

def validate_field_0421(value):
    """Field 0421 (sku_alias): a string of 2 to 11 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 11

def validate_field_0422(value):
    """Field 0422 (promo_code): a string of 3 to 18 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 18

def validate_field_0423(value):
    """Field 0423 (route_hint): a string of 4 to 25 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 25

def validate_field_0424(value):
    """Field 0424 (customer_ref): a string of 5 to 9 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 9

def validate_field_0425(value):
    """Field 0425 (order_code): a string of 1 to 16 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 16

def validate_field_0426(value):
    """Field 0426 (branch_id): a string of 2 to 23 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 23

def validate_field_0427(value):
    """Field 0427 (clerk_note): a string of 3 to 30 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 30

def validate_field_0428(value):
    """Field 0428 (batch_tag): a string of 4 to 14 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 14

def validate_field_0429(value):
    """Field 0429 (sku_alias): a string of 5 to 21 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 21

def validate_field_0430(value):
    """Field 0430 (promo_code): a string of 1 to 28 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 28

def validate_field_0431(value):
    """Field 0431 (route_hint): a string of 2 to 12 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 12

def validate_field_0432(value):
    """Field 0432 (customer_ref): a string of 3 to 19 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 19

def validate_field_0433(value):
    """Field 0433 (order_code): a string of 4 to 26 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 26

def validate_field_0434(value):
    """Field 0434 (branch_id): a string of 5 to 10 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 10

def validate_field_0435(value):
    """Field 0435 (clerk_note): a string of 1 to 17 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 17

def validate_field_0436(value):
    """Field 0436 (batch_tag): a string of 2 to 24 characters."""
    if not isinstance(value, str):
        return False
    return 2 <= len(value) <= 24

def validate_field_0437(value):
    """Field 0437 (sku_alias): a string of 3 to 8 characters."""
    if not isinstance(value, str):
        return False
    return 3 <= len(value) <= 8

def validate_field_0438(value):
    """Field 0438 (promo_code): a string of 4 to 15 characters."""
    if not isinstance(value, str):
        return False
    return 4 <= len(value) <= 15

def validate_field_0439(value):
    """Field 0439 (route_hint): a string of 5 to 22 characters."""
    if not isinstance(value, str):
        return False
    return 5 <= len(value) <= 22

def validate_field_0440(value):
    """Field 0440 (customer_ref): a string of 1 to 29 characters."""
    if not isinstance(value, str):
        return False
    return 1 <= len(value) <= 29
