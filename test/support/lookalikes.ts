/**
 * Strings that a YAML reader may take for something else (YAML 1.1 booleans, nulls, octals, sexagesimals,
 * timestamps, merge keys, indicators, odd whitespace): what every string the renderer writes must survive.
 */
export const LOOKALIKES: readonly string[] = [
  ...['yes', 'Yes', 'YES', 'no', 'on', 'On', 'off', 'Off', 'y', 'Y', 'n', 'N', 'true', 'TRUE', 'False'],
  ...['~', 'null', 'Null', 'NULL', '.inf', '-.inf', '.NaN', '0755', '0o755', '0x1F', '0b101', '-0b1'],
  ...['1_000', '+12', '-0', '3', '3.0', '.5', '1e3', '1.5e-3', 'e3', '1:20', '190:20:30', '1:20.5'],
  ...['2001-12-14', '2001-12-14t21:59:43.10-05:00', '2001-12-14 21:59:43.10 -5', '=', '<<', ''],
  ...[' ', ' leading', 'trailing ', '#comment', 'a #b', '- item', '-', '?', '? x', 'key: value', 'a:'],
  ...[':', '@x', '`x', '%x', '!tag', '&anchor', '*alias', '|', '>', "'", '"', '{a}', '[a]', 'a, b'],
  ...['---', '...', 'tab\tinside', '\tx', 'multi\nline', 'trailing newline\n', ' \n', '\n\n', '\ta\nb'],
  ...['line\u2028separator', 'next\u0085line', '\ufeffbom', 'del\x7f', 'bell\x07'],
];
