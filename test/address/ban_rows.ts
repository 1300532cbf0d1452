// Small BAN CSV files generated in the tests: invented streets ("Rue des Lilas", …) in real communes, so that the
// nationwide reference resolves their postcodes and cities; nothing comes from a real BAN file.
import { gzipSync } from "node:zlib";

export const BAN_HEADER =
  "id;id_fantoir;numero;rep;nom_voie;code_postal;code_insee;nom_commune;code_insee_ancienne_commune;nom_ancienne_commune;x;y;lon;lat;type_position;alias;nom_ld;libelle_acheminement;nom_afnor;source_position;source_nom_voie;certification_commune;cad_parcelles";

export interface Commune {
  departement: string;
  insee: string;
  postcode: string;
  name: string;
  acheminement: string;
  lat: number;
  lon: number;
}

/** Three communes of three départements, in INSEE code order as BAN exports are. */
export const COMMUNES = {
  ambérieu: {
    departement: "01",
    insee: "01004",
    postcode: "01500",
    name: "Ambérieu-en-Bugey",
    acheminement: "AMBERIEU-EN-BUGEY",
    lat: 45.96,
    lon: 5.36,
  },
  ajaccio: {
    departement: "2A",
    insee: "2A004",
    postcode: "20000",
    name: "Ajaccio",
    acheminement: "AJACCIO",
    lat: 41.92,
    lon: 8.74,
  },
  saintDenis: {
    departement: "974",
    insee: "97411",
    postcode: "97400",
    name: "Saint-Denis",
    acheminement: "SAINT DENIS",
    lat: -20.88,
    lon: 55.45,
  },
} satisfies Record<string, Commune>;

const TYPES = [
  ["Rue", "RUE"],
  ["Avenue", "AV"],
  ["Impasse", "IMP"],
  ["Allée", "ALL"],
  ["Chemin", "CHE"],
] as const;
const TREES = [
  ["Lilas", "LILAS"],
  ["Tilleuls", "TILLEULS"],
  ["Acacias", "ACACIAS"],
  ["Peupliers", "PEUPLIERS"],
  ["Saules", "SAULES"],
  ["Chênes", "CHENES"],
  ["Érables", "ERABLES"],
  ["Bouleaux", "BOULEAUX"],
  ["Platanes", "PLATANES"],
  ["Cèdres", "CEDRES"],
] as const;

/** How many streets banRows() can write: each street type with each tree name. */
export const MAX_STREETS = TYPES.length * TREES.length;

/**
 * Rows of `streets` streets ("Rue des Lilas", "Avenue des Saules", …; 25 unless told, a multiple of 5 up to
 * MAX_STREETS) numbered 1 to `numbers` in `commune`.
 */
export function banRows(commune: Commune, numbers: number, streets = 25): string[] {
  if (streets % TYPES.length !== 0 || streets < TYPES.length || streets > MAX_STREETS) {
    throw new RangeError(`banRows: streets must be a multiple of ${TYPES.length} up to ${MAX_STREETS}, got ${streets}`);
  }
  const lines: string[] = [];
  for (const [type, typeAfnor] of TYPES) {
    for (const [tree, treeAfnor] of TREES.slice(0, streets / TYPES.length)) {
      for (let n = 1; n <= numbers; n++) {
        const lat = (commune.lat + n * 1e-5).toFixed(6);
        const lon = (commune.lon + n * 1e-5).toFixed(6);
        lines.push(
          `${commune.insee}_x_${n};;${n};;${type} des ${tree};${commune.postcode};${commune.insee};${commune.name};;;0;0;` +
            `${lon};${lat};entrée;;;${commune.acheminement};${typeAfnor} DES ${treeAfnor};commune;commune;1;`,
        );
      }
    }
  }
  return lines;
}

/** A whole BAN CSV, as text. */
export function banCsv(commune: Commune, numbers = 20): string {
  return `${[BAN_HEADER, ...banRows(commune, numbers)].join("\n")}\n`;
}

/** The same, gzipped as published. */
export function banCsvGz(commune: Commune, numbers = 20): Buffer {
  return gzipSync(banCsv(commune, numbers));
}
