"use strict";
// Labels and numbers for printed documents. Generated; hand-written functions are marked.

function label0001(value) {
  // label 0001: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0002(value) {
  // label 0002: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0003(value) {
  // label 0003: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0004(value) {
  // label 0004: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0005(value) {
  // label 0005: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0006(value) {
  // label 0006: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0007(value) {
  // label 0007: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0008(value) {
  // label 0008: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0009(value) {
  // label 0009: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0010(value) {
  // label 0010: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0011(value) {
  // label 0011: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0012(value) {
  // label 0012: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0013(value) {
  // label 0013: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0014(value) {
  // label 0014: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0015(value) {
  // label 0015: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0016(value) {
  // label 0016: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0017(value) {
  // label 0017: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0018(value) {
  // label 0018: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0019(value) {
  // label 0019: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0020(value) {
  // label 0020: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0021(value) {
  // label 0021: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0022(value) {
  // label 0022: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0023(value) {
  // label 0023: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0024(value) {
  // label 0024: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0025(value) {
  // label 0025: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0026(value) {
  // label 0026: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0027(value) {
  // label 0027: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0028(value) {
  // label 0028: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0029(value) {
  // label 0029: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0030(value) {
  // label 0030: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0031(value) {
  // label 0031: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0032(value) {
  // label 0032: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0033(value) {
  // label 0033: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0034(value) {
  // label 0034: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0035(value) {
  // label 0035: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0036(value) {
  // label 0036: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0037(value) {
  // label 0037: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0038(value) {
  // label 0038: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0039(value) {
  // label 0039: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0040(value) {
  // label 0040: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0041(value) {
  // label 0041: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0042(value) {
  // label 0042: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0043(value) {
  // label 0043: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0044(value) {
  // label 0044: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0045(value) {
  // label 0045: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0046(value) {
  // label 0046: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0047(value) {
  // label 0047: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0048(value) {
  // label 0048: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0049(value) {
  // label 0049: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0050(value) {
  // label 0050: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0051(value) {
  // label 0051: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0052(value) {
  // label 0052: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0053(value) {
  // label 0053: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0054(value) {
  // label 0054: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0055(value) {
  // label 0055: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0056(value) {
  // label 0056: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0057(value) {
  // label 0057: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0058(value) {
  // label 0058: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0059(value) {
  // label 0059: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0060(value) {
  // label 0060: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0061(value) {
  // label 0061: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0062(value) {
  // label 0062: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0063(value) {
  // label 0063: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0064(value) {
  // label 0064: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0065(value) {
  // label 0065: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0066(value) {
  // label 0066: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0067(value) {
  // label 0067: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0068(value) {
  // label 0068: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0069(value) {
  // label 0069: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0070(value) {
  // label 0070: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0071(value) {
  // label 0071: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0072(value) {
  // label 0072: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0073(value) {
  // label 0073: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0074(value) {
  // label 0074: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0075(value) {
  // label 0075: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0076(value) {
  // label 0076: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0077(value) {
  // label 0077: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0078(value) {
  // label 0078: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0079(value) {
  // label 0079: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0080(value) {
  // label 0080: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0081(value) {
  // label 0081: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0082(value) {
  // label 0082: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0083(value) {
  // label 0083: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0084(value) {
  // label 0084: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0085(value) {
  // label 0085: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0086(value) {
  // label 0086: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0087(value) {
  // label 0087: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0088(value) {
  // label 0088: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0089(value) {
  // label 0089: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0090(value) {
  // label 0090: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0091(value) {
  // label 0091: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0092(value) {
  // label 0092: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0093(value) {
  // label 0093: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0094(value) {
  // label 0094: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0095(value) {
  // label 0095: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0096(value) {
  // label 0096: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0097(value) {
  // label 0097: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0098(value) {
  // label 0098: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0099(value) {
  // label 0099: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0100(value) {
  // label 0100: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0101(value) {
  // label 0101: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0102(value) {
  // label 0102: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0103(value) {
  // label 0103: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0104(value) {
  // label 0104: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0105(value) {
  // label 0105: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0106(value) {
  // label 0106: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0107(value) {
  // label 0107: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0108(value) {
  // label 0108: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0109(value) {
  // label 0109: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0110(value) {
  // label 0110: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0111(value) {
  // label 0111: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0112(value) {
  // label 0112: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0113(value) {
  // label 0113: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0114(value) {
  // label 0114: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0115(value) {
  // label 0115: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0116(value) {
  // label 0116: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0117(value) {
  // label 0117: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0118(value) {
  // label 0118: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0119(value) {
  // label 0119: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0120(value) {
  // label 0120: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0121(value) {
  // label 0121: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0122(value) {
  // label 0122: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0123(value) {
  // label 0123: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0124(value) {
  // label 0124: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0125(value) {
  // label 0125: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0126(value) {
  // label 0126: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0127(value) {
  // label 0127: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0128(value) {
  // label 0128: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0129(value) {
  // label 0129: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0130(value) {
  // label 0130: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0131(value) {
  // label 0131: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0132(value) {
  // label 0132: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0133(value) {
  // label 0133: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0134(value) {
  // label 0134: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0135(value) {
  // label 0135: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0136(value) {
  // label 0136: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0137(value) {
  // label 0137: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0138(value) {
  // label 0138: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0139(value) {
  // label 0139: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0140(value) {
  // label 0140: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0141(value) {
  // label 0141: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0142(value) {
  // label 0142: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0143(value) {
  // label 0143: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0144(value) {
  // label 0144: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0145(value) {
  // label 0145: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0146(value) {
  // label 0146: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0147(value) {
  // label 0147: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0148(value) {
  // label 0148: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0149(value) {
  // label 0149: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0150(value) {
  // label 0150: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0151(value) {
  // label 0151: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0152(value) {
  // label 0152: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0153(value) {
  // label 0153: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0154(value) {
  // label 0154: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0155(value) {
  // label 0155: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0156(value) {
  // label 0156: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0157(value) {
  // label 0157: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0158(value) {
  // label 0158: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0159(value) {
  // label 0159: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0160(value) {
  // label 0160: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0161(value) {
  // label 0161: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0162(value) {
  // label 0162: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0163(value) {
  // label 0163: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0164(value) {
  // label 0164: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0165(value) {
  // label 0165: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0166(value) {
  // label 0166: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0167(value) {
  // label 0167: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0168(value) {
  // label 0168: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0169(value) {
  // label 0169: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0170(value) {
  // label 0170: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0171(value) {
  // label 0171: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0172(value) {
  // label 0172: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0173(value) {
  // label 0173: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0174(value) {
  // label 0174: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0175(value) {
  // label 0175: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0176(value) {
  // label 0176: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0177(value) {
  // label 0177: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0178(value) {
  // label 0178: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0179(value) {
  // label 0179: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0180(value) {
  // label 0180: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0181(value) {
  // label 0181: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0182(value) {
  // label 0182: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0183(value) {
  // label 0183: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0184(value) {
  // label 0184: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0185(value) {
  // label 0185: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0186(value) {
  // label 0186: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0187(value) {
  // label 0187: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0188(value) {
  // label 0188: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0189(value) {
  // label 0189: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0190(value) {
  // label 0190: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0191(value) {
  // label 0191: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0192(value) {
  // label 0192: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0193(value) {
  // label 0193: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0194(value) {
  // label 0194: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0195(value) {
  // label 0195: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0196(value) {
  // label 0196: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0197(value) {
  // label 0197: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0198(value) {
  // label 0198: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0199(value) {
  // label 0199: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0200(value) {
  // label 0200: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0201(value) {
  // label 0201: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0202(value) {
  // label 0202: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0203(value) {
  // label 0203: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0204(value) {
  // label 0204: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0205(value) {
  // label 0205: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0206(value) {
  // label 0206: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0207(value) {
  // label 0207: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0208(value) {
  // label 0208: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0209(value) {
  // label 0209: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0210(value) {
  // label 0210: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0211(value) {
  // label 0211: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0212(value) {
  // label 0212: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0213(value) {
  // label 0213: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0214(value) {
  // label 0214: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0215(value) {
  // label 0215: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0216(value) {
  // label 0216: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0217(value) {
  // label 0217: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0218(value) {
  // label 0218: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0219(value) {
  // label 0219: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0220(value) {
  // label 0220: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0221(value) {
  // label 0221: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0222(value) {
  // label 0222: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0223(value) {
  // label 0223: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0224(value) {
  // label 0224: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0225(value) {
  // label 0225: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0226(value) {
  // label 0226: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0227(value) {
  // label 0227: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0228(value) {
  // label 0228: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0229(value) {
  // label 0229: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0230(value) {
  // label 0230: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0231(value) {
  // label 0231: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0232(value) {
  // label 0232: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0233(value) {
  // label 0233: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0234(value) {
  // label 0234: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0235(value) {
  // label 0235: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0236(value) {
  // label 0236: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0237(value) {
  // label 0237: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0238(value) {
  // label 0238: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0239(value) {
  // label 0239: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0240(value) {
  // label 0240: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0241(value) {
  // label 0241: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0242(value) {
  // label 0242: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0243(value) {
  // label 0243: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0244(value) {
  // label 0244: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0245(value) {
  // label 0245: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0246(value) {
  // label 0246: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0247(value) {
  // label 0247: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0248(value) {
  // label 0248: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0249(value) {
  // label 0249: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0250(value) {
  // label 0250: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0251(value) {
  // label 0251: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0252(value) {
  // label 0252: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0253(value) {
  // label 0253: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0254(value) {
  // label 0254: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0255(value) {
  // label 0255: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0256(value) {
  // label 0256: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0257(value) {
  // label 0257: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0258(value) {
  // label 0258: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0259(value) {
  // label 0259: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0260(value) {
  // label 0260: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

// hand-written
/**
 * Invoice numbers: "INV-" + the year + "-" + the sequence number zero-padded to 6 digits,
 * e.g. formatInvoiceNumber(2024, 42) === "INV-2024-000042". Sequences above 999999 are an error.
 */
function formatInvoiceNumber(year, sequence) {
  if (!Number.isInteger(sequence) || sequence < 1 || sequence > 999999) throw new RangeError("bad sequence");
  return "INV-" + year + "-" + String(sequence).padStart(6, "0");
}

function label0261(value) {
  // label 0261: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0262(value) {
  // label 0262: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0263(value) {
  // label 0263: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0264(value) {
  // label 0264: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0265(value) {
  // label 0265: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0266(value) {
  // label 0266: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0267(value) {
  // label 0267: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0268(value) {
  // label 0268: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0269(value) {
  // label 0269: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0270(value) {
  // label 0270: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0271(value) {
  // label 0271: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0272(value) {
  // label 0272: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0273(value) {
  // label 0273: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0274(value) {
  // label 0274: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0275(value) {
  // label 0275: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0276(value) {
  // label 0276: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0277(value) {
  // label 0277: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0278(value) {
  // label 0278: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0279(value) {
  // label 0279: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0280(value) {
  // label 0280: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0281(value) {
  // label 0281: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0282(value) {
  // label 0282: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0283(value) {
  // label 0283: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0284(value) {
  // label 0284: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0285(value) {
  // label 0285: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0286(value) {
  // label 0286: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0287(value) {
  // label 0287: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0288(value) {
  // label 0288: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0289(value) {
  // label 0289: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0290(value) {
  // label 0290: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0291(value) {
  // label 0291: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0292(value) {
  // label 0292: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0293(value) {
  // label 0293: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0294(value) {
  // label 0294: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0295(value) {
  // label 0295: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0296(value) {
  // label 0296: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0297(value) {
  // label 0297: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0298(value) {
  // label 0298: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0299(value) {
  // label 0299: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0300(value) {
  // label 0300: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0301(value) {
  // label 0301: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0302(value) {
  // label 0302: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0303(value) {
  // label 0303: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0304(value) {
  // label 0304: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0305(value) {
  // label 0305: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0306(value) {
  // label 0306: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0307(value) {
  // label 0307: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0308(value) {
  // label 0308: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0309(value) {
  // label 0309: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0310(value) {
  // label 0310: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0311(value) {
  // label 0311: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0312(value) {
  // label 0312: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0313(value) {
  // label 0313: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0314(value) {
  // label 0314: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0315(value) {
  // label 0315: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0316(value) {
  // label 0316: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0317(value) {
  // label 0317: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0318(value) {
  // label 0318: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0319(value) {
  // label 0319: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0320(value) {
  // label 0320: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0321(value) {
  // label 0321: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0322(value) {
  // label 0322: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0323(value) {
  // label 0323: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0324(value) {
  // label 0324: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0325(value) {
  // label 0325: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0326(value) {
  // label 0326: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0327(value) {
  // label 0327: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0328(value) {
  // label 0328: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0329(value) {
  // label 0329: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0330(value) {
  // label 0330: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0331(value) {
  // label 0331: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0332(value) {
  // label 0332: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0333(value) {
  // label 0333: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0334(value) {
  // label 0334: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0335(value) {
  // label 0335: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0336(value) {
  // label 0336: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0337(value) {
  // label 0337: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0338(value) {
  // label 0338: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0339(value) {
  // label 0339: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0340(value) {
  // label 0340: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0341(value) {
  // label 0341: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0342(value) {
  // label 0342: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0343(value) {
  // label 0343: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0344(value) {
  // label 0344: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0345(value) {
  // label 0345: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0346(value) {
  // label 0346: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0347(value) {
  // label 0347: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0348(value) {
  // label 0348: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0349(value) {
  // label 0349: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0350(value) {
  // label 0350: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0351(value) {
  // label 0351: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0352(value) {
  // label 0352: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0353(value) {
  // label 0353: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0354(value) {
  // label 0354: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0355(value) {
  // label 0355: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0356(value) {
  // label 0356: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0357(value) {
  // label 0357: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0358(value) {
  // label 0358: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0359(value) {
  // label 0359: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0360(value) {
  // label 0360: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0361(value) {
  // label 0361: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0362(value) {
  // label 0362: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0363(value) {
  // label 0363: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0364(value) {
  // label 0364: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0365(value) {
  // label 0365: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0366(value) {
  // label 0366: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0367(value) {
  // label 0367: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0368(value) {
  // label 0368: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0369(value) {
  // label 0369: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0370(value) {
  // label 0370: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0371(value) {
  // label 0371: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0372(value) {
  // label 0372: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0373(value) {
  // label 0373: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0374(value) {
  // label 0374: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0375(value) {
  // label 0375: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0376(value) {
  // label 0376: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0377(value) {
  // label 0377: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0378(value) {
  // label 0378: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0379(value) {
  // label 0379: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0380(value) {
  // label 0380: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0381(value) {
  // label 0381: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0382(value) {
  // label 0382: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0383(value) {
  // label 0383: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0384(value) {
  // label 0384: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0385(value) {
  // label 0385: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0386(value) {
  // label 0386: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0387(value) {
  // label 0387: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0388(value) {
  // label 0388: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0389(value) {
  // label 0389: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0390(value) {
  // label 0390: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0391(value) {
  // label 0391: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0392(value) {
  // label 0392: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0393(value) {
  // label 0393: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0394(value) {
  // label 0394: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0395(value) {
  // label 0395: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0396(value) {
  // label 0396: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0397(value) {
  // label 0397: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0398(value) {
  // label 0398: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0399(value) {
  // label 0399: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0400(value) {
  // label 0400: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0401(value) {
  // label 0401: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0402(value) {
  // label 0402: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0403(value) {
  // label 0403: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0404(value) {
  // label 0404: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0405(value) {
  // label 0405: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0406(value) {
  // label 0406: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0407(value) {
  // label 0407: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0408(value) {
  // label 0408: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0409(value) {
  // label 0409: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0410(value) {
  // label 0410: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0411(value) {
  // label 0411: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0412(value) {
  // label 0412: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0413(value) {
  // label 0413: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0414(value) {
  // label 0414: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0415(value) {
  // label 0415: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0416(value) {
  // label 0416: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0417(value) {
  // label 0417: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0418(value) {
  // label 0418: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0419(value) {
  // label 0419: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0420(value) {
  // label 0420: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0421(value) {
  // label 0421: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0422(value) {
  // label 0422: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0423(value) {
  // label 0423: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0424(value) {
  // label 0424: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0425(value) {
  // label 0425: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0426(value) {
  // label 0426: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0427(value) {
  // label 0427: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0428(value) {
  // label 0428: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0429(value) {
  // label 0429: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0430(value) {
  // label 0430: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0431(value) {
  // label 0431: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0432(value) {
  // label 0432: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0433(value) {
  // label 0433: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0434(value) {
  // label 0434: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0435(value) {
  // label 0435: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0436(value) {
  // label 0436: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0437(value) {
  // label 0437: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0438(value) {
  // label 0438: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0439(value) {
  // label 0439: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0440(value) {
  // label 0440: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0441(value) {
  // label 0441: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0442(value) {
  // label 0442: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0443(value) {
  // label 0443: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0444(value) {
  // label 0444: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0445(value) {
  // label 0445: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0446(value) {
  // label 0446: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0447(value) {
  // label 0447: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0448(value) {
  // label 0448: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0449(value) {
  // label 0449: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0450(value) {
  // label 0450: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0451(value) {
  // label 0451: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0452(value) {
  // label 0452: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0453(value) {
  // label 0453: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0454(value) {
  // label 0454: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0455(value) {
  // label 0455: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0456(value) {
  // label 0456: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0457(value) {
  // label 0457: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0458(value) {
  // label 0458: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0459(value) {
  // label 0459: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0460(value) {
  // label 0460: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0461(value) {
  // label 0461: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0462(value) {
  // label 0462: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0463(value) {
  // label 0463: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0464(value) {
  // label 0464: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0465(value) {
  // label 0465: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0466(value) {
  // label 0466: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0467(value) {
  // label 0467: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0468(value) {
  // label 0468: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0469(value) {
  // label 0469: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0470(value) {
  // label 0470: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0471(value) {
  // label 0471: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0472(value) {
  // label 0472: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0473(value) {
  // label 0473: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0474(value) {
  // label 0474: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0475(value) {
  // label 0475: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0476(value) {
  // label 0476: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0477(value) {
  // label 0477: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0478(value) {
  // label 0478: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0479(value) {
  // label 0479: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0480(value) {
  // label 0480: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0481(value) {
  // label 0481: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0482(value) {
  // label 0482: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0483(value) {
  // label 0483: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0484(value) {
  // label 0484: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

function label0485(value) {
  // label 0485: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u8`;
}

function label0486(value) {
  // label 0486: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u0`;
}

function label0487(value) {
  // label 0487: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u1`;
}

function label0488(value) {
  // label 0488: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u2`;
}

function label0489(value) {
  // label 0489: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u3`;
}

function label0490(value) {
  // label 0490: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u4`;
}

function label0491(value) {
  // label 0491: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u5`;
}

function label0492(value) {
  // label 0492: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u6`;
}

function label0493(value) {
  // label 0493: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u7`;
}

function label0494(value) {
  // label 0494: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u8`;
}

function label0495(value) {
  // label 0495: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u0`;
}

function label0496(value) {
  // label 0496: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u1`;
}

function label0497(value) {
  // label 0497: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u2`;
}

function label0498(value) {
  // label 0498: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u3`;
}

function label0499(value) {
  // label 0499: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u4`;
}

function label0500(value) {
  // label 0500: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u5`;
}

function label0501(value) {
  // label 0501: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u6`;
}

function label0502(value) {
  // label 0502: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u7`;
}

function label0503(value) {
  // label 0503: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u8`;
}

function label0504(value) {
  // label 0504: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u0`;
}

function label0505(value) {
  // label 0505: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u1`;
}

function label0506(value) {
  // label 0506: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u2`;
}

function label0507(value) {
  // label 0507: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u3`;
}

function label0508(value) {
  // label 0508: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u4`;
}

function label0509(value) {
  // label 0509: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u5`;
}

function label0510(value) {
  // label 0510: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u6`;
}

function label0511(value) {
  // label 0511: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u7`;
}

function label0512(value) {
  // label 0512: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u8`;
}

function label0513(value) {
  // label 0513: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u0`;
}

function label0514(value) {
  // label 0514: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u1`;
}

function label0515(value) {
  // label 0515: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u2`;
}

function label0516(value) {
  // label 0516: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u3`;
}

function label0517(value) {
  // label 0517: the value with its unit, to 1 decimals
  return `${Number(value).toFixed(1)} u4`;
}

function label0518(value) {
  // label 0518: the value with its unit, to 2 decimals
  return `${Number(value).toFixed(2)} u5`;
}

function label0519(value) {
  // label 0519: the value with its unit, to 3 decimals
  return `${Number(value).toFixed(3)} u6`;
}

function label0520(value) {
  // label 0520: the value with its unit, to 0 decimals
  return `${Number(value).toFixed(0)} u7`;
}

module.exports = { formatInvoiceNumber, label0001, label0002, label0003, label0004, label0005, label0006, label0007, label0008, label0009, label0010, label0011, label0012, label0013, label0014, label0015, label0016, label0017, label0018, label0019, label0020, label0021, label0022, label0023, label0024, label0025, label0026, label0027, label0028, label0029, label0030, label0031, label0032, label0033, label0034, label0035, label0036, label0037, label0038, label0039, label0040, label0041, label0042, label0043, label0044, label0045, label0046, label0047, label0048, label0049, label0050, label0051, label0052, label0053, label0054, label0055, label0056, label0057, label0058, label0059, label0060, label0061, label0062, label0063, label0064, label0065, label0066, label0067, label0068, label0069, label0070, label0071, label0072, label0073, label0074, label0075, label0076, label0077, label0078, label0079, label0080, label0081, label0082, label0083, label0084, label0085, label0086, label0087, label0088, label0089, label0090, label0091, label0092, label0093, label0094, label0095, label0096, label0097, label0098, label0099, label0100, label0101, label0102, label0103, label0104, label0105, label0106, label0107, label0108, label0109, label0110, label0111, label0112, label0113, label0114, label0115, label0116, label0117, label0118, label0119, label0120, label0121, label0122, label0123, label0124, label0125, label0126, label0127, label0128, label0129, label0130, label0131, label0132, label0133, label0134, label0135, label0136, label0137, label0138, label0139, label0140, label0141, label0142, label0143, label0144, label0145, label0146, label0147, label0148, label0149, label0150, label0151, label0152, label0153, label0154, label0155, label0156, label0157, label0158, label0159, label0160, label0161, label0162, label0163, label0164, label0165, label0166, label0167, label0168, label0169, label0170, label0171, label0172, label0173, label0174, label0175, label0176, label0177, label0178, label0179, label0180, label0181, label0182, label0183, label0184, label0185, label0186, label0187, label0188, label0189, label0190, label0191, label0192, label0193, label0194, label0195, label0196, label0197, label0198, label0199, label0200, label0201, label0202, label0203, label0204, label0205, label0206, label0207, label0208, label0209, label0210, label0211, label0212, label0213, label0214, label0215, label0216, label0217, label0218, label0219, label0220, label0221, label0222, label0223, label0224, label0225, label0226, label0227, label0228, label0229, label0230, label0231, label0232, label0233, label0234, label0235, label0236, label0237, label0238, label0239, label0240, label0241, label0242, label0243, label0244, label0245, label0246, label0247, label0248, label0249, label0250, label0251, label0252, label0253, label0254, label0255, label0256, label0257, label0258, label0259, label0260, label0261, label0262, label0263, label0264, label0265, label0266, label0267, label0268, label0269, label0270, label0271, label0272, label0273, label0274, label0275, label0276, label0277, label0278, label0279, label0280, label0281, label0282, label0283, label0284, label0285, label0286, label0287, label0288, label0289, label0290, label0291, label0292, label0293, label0294, label0295, label0296, label0297, label0298, label0299, label0300, label0301, label0302, label0303, label0304, label0305, label0306, label0307, label0308, label0309, label0310, label0311, label0312, label0313, label0314, label0315, label0316, label0317, label0318, label0319, label0320, label0321, label0322, label0323, label0324, label0325, label0326, label0327, label0328, label0329, label0330, label0331, label0332, label0333, label0334, label0335, label0336, label0337, label0338, label0339, label0340, label0341, label0342, label0343, label0344, label0345, label0346, label0347, label0348, label0349, label0350, label0351, label0352, label0353, label0354, label0355, label0356, label0357, label0358, label0359, label0360, label0361, label0362, label0363, label0364, label0365, label0366, label0367, label0368, label0369, label0370, label0371, label0372, label0373, label0374, label0375, label0376, label0377, label0378, label0379, label0380, label0381, label0382, label0383, label0384, label0385, label0386, label0387, label0388, label0389, label0390, label0391, label0392, label0393, label0394, label0395, label0396, label0397, label0398, label0399, label0400, label0401, label0402, label0403, label0404, label0405, label0406, label0407, label0408, label0409, label0410, label0411, label0412, label0413, label0414, label0415, label0416, label0417, label0418, label0419, label0420, label0421, label0422, label0423, label0424, label0425, label0426, label0427, label0428, label0429, label0430, label0431, label0432, label0433, label0434, label0435, label0436, label0437, label0438, label0439, label0440, label0441, label0442, label0443, label0444, label0445, label0446, label0447, label0448, label0449, label0450, label0451, label0452, label0453, label0454, label0455, label0456, label0457, label0458, label0459, label0460, label0461, label0462, label0463, label0464, label0465, label0466, label0467, label0468, label0469, label0470, label0471, label0472, label0473, label0474, label0475, label0476, label0477, label0478, label0479, label0480, label0481, label0482, label0483, label0484, label0485, label0486, label0487, label0488, label0489, label0490, label0491, label0492, label0493, label0494, label0495, label0496, label0497, label0498, label0499, label0500, label0501, label0502, label0503, label0504, label0505, label0506, label0507, label0508, label0509, label0510, label0511, label0512, label0513, label0514, label0515, label0516, label0517, label0518, label0519, label0520 };
