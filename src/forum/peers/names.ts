/**
 * Names compared as a person reads them, so that a display name cannot pass for the moderator's
 * with invisible characters, spacing, accents, case or letters of another script: a skeleton in
 * the spirit of Unicode TS #39, cut down to what matters for short names.
 */

/**
 * Characters that render as nothing or as blank space: default-ignorable code points (zero-width
 * characters, the soft hyphen, variation selectors, tags, Hangul fillers), format characters,
 * every space separator and the Braille blank. A hair space inside a name is as good as invisible.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Z}\s\u2800]/gu;
const MARKS = /\p{M}/gu;

/**
 * Latin letter → letters of other scripts that pass for it (Cyrillic, Greek, IPA, small capitals).
 * Both cases are listed where the look depends on the case (Greek Η looks like H, η like n). Written
 * as escapes: a reader cannot tell a Cyrillic о from a Latin o on screen.
 */
const LOOK_ALIKES: Record<string, string> = {
  a: '\u0410\u0430\u0391\u03B1\u0251\u1D00', // Cyrillic А а, Greek Α α, Latin alpha, small capital A
  b: '\u0412\u0432\u0392\u03B2\u044C\u0299\uA7B5', // Cyrillic В в, Greek Β β, Cyrillic soft sign, small capital B, Latin beta
  c: '\u0421\u0441\u03F9\u03F2\u1D04', // Cyrillic С с, Greek lunate sigma Ϲ ϲ, small capital C
  d: '\u0500\u0501\u1D05', // Cyrillic Komi de Ԁ ԁ, small capital D
  e: '\u0415\u0435\u0395\u03B5\u1D07', // Cyrillic Е е, Greek Ε ε, small capital E
  g: '\u0261\u0262', // Latin script g, small capital G
  h: '\u041D\u043D\u04BA\u04BB\u0397\u029C', // Cyrillic Н н, Cyrillic shha Һ һ, Greek Η, small capital H
  i: '\u0406\u0456\u04C0\u04CF\u0399\u03B9\u0131\u026A\u029F', // Cyrillic І і, palochka Ӏ ӏ, Greek Ι ι, dotless ı, small capitals I and L
  j: '\u0408\u0458\u1D0A', // Cyrillic Ј ј, small capital J
  k: '\u041A\u043A\u039A\u03BA\u1D0B', // Cyrillic К к, Greek Κ κ, small capital K
  m: '\u041C\u043C\u039C\u1D0D', // Cyrillic М м, Greek Μ, small capital M
  n: '\u043F\u03B7\u039D\u0274', // Cyrillic п, Greek η Ν, small capital N
  o: '\u041E\u043E\u039F\u03BF\u1D0F', // Cyrillic О о, Greek Ο ο, small capital O
  p: '\u0420\u0440\u03A1\u03C1\u1D18', // Cyrillic Р р, Greek Ρ ρ, small capital P
  q: '\u051A\u051B', // Cyrillic Ԛ ԛ
  r: '\u0433\u0280', // Cyrillic г, small capital R
  s: '\u0405\u0455\uA731', // Cyrillic Ѕ ѕ, small capital S
  t: '\u0422\u0442\u03A4\u03C4\u1D1B', // Cyrillic Т т, Greek Τ τ, small capital T
  u: '\u03BC\u03C5\u1D1C', // Greek μ υ, small capital U
  v: '\u03BD\u1D20', // Greek ν, small capital V
  w: '\u051C\u051D\u03C9\u1D21', // Cyrillic Ԝ ԝ, Greek ω, small capital W
  x: '\u0425\u0445\u03A7\u03C7', // Cyrillic Х х, Greek Χ χ
  y: '\u0423\u0443\u04AE\u04AF\u03A5\u03B3\u028F', // Cyrillic У у Ү ү, Greek Υ γ, small capital Y
  z: '\u0396\u1D22', // Greek Ζ, small capital Z
};

const LATIN_FOR = new Map(Object.entries(LOOK_ALIKES).flatMap(([latin, others]) => [...others].map((other) => [other, latin] as const)));

/** After lowercasing: pairs, digits and signs that pass for a letter (rn and m, I and l, 0 and o). */
const LATIN_LOOK_ALIKES: [RegExp, string][] = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
  [/cl/g, 'd'],
  [/[l1|]/g, 'i'],
  [/0/g, 'o'],
  [/5/g, 's'],
];

/** The form that two names share when a reader could take one for the other. */
export function nameSkeleton(name: string): string {
  const plain = name.normalize('NFKC').replace(INVISIBLE, '').normalize('NFD').replace(MARKS, '');
  let latin = '';
  for (const character of plain) latin += LATIN_FOR.get(character) ?? character;
  return LATIN_LOOK_ALIKES.reduce((text, [pattern, letter]) => text.replace(pattern, letter), latin.toLowerCase());
}

/** Whether `name` could be read as `reserved`. */
export function imitatesName(name: string, reserved: string): boolean {
  return nameSkeleton(name) === nameSkeleton(reserved);
}
