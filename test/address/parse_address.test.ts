import assert from "node:assert/strict";
import { test } from "node:test";
import { isFrance, splitCountry } from "../../src/address/parse/country.ts";
import { readHouseNumber } from "../../src/address/parse/house_number.ts";
import { parseAddress, type ParsedAddress } from "../../src/address/parse/parse_address.ts";
import type { AddressInput } from "../../src/address/types.ts";

const CASES: Array<[AddressInput, Partial<ParsedAddress>]> = [
  [
    { line: "12 bis Rue de Rivoli, 75001 Paris" },
    { houseNumber: "12", suffix: "b", street: "Rue de Rivoli", postcode: "75001", city: "Paris" },
  ],
  [
    { line: "12bis r de rivoli 75001 PARIS" },
    { houseNumber: "12", suffix: "b", street: "r de rivoli", postcode: "75001", city: "PARIS" },
  ],
  [{ line: "12 B rue de Rivoli 75001 Paris" }, { houseNumber: "12", suffix: "b", street: "rue de Rivoli" }],
  [{ line: "12 ter, rue de Rivoli 75001 Paris" }, { houseNumber: "12", suffix: "t", street: "rue de Rivoli" }],
  [{ line: "7 quater rue X 75001 Paris" }, { houseNumber: "7", suffix: "q" }],
  // The suffix in a segment of its own after the number's (was dropped).
  [{ line: "rue de Rivoli, 194, bis, 75001 Paris" }, { houseNumber: "194", suffix: "b", street: "rue de Rivoli" }],
  // Three numbers of a range (was the street "-14 rue de Rivoli").
  [{ line: "10-12-14 rue de Rivoli 75004 Paris" }, { houseNumber: "10", suffix: null, street: "rue de Rivoli" }],
  // The number sign before a number written after the street (was the street "Rue de Rivoli no.").
  [{ line: "Rue de Rivoli no. 10, 75004 Paris" }, { houseNumber: "10", street: "Rue de Rivoli" }],
  [{ line: "Rue de Rivoli n 10 75004 Paris" }, { houseNumber: "10", street: "Rue de Rivoli" }],
  // A comma typed between the number and its suffix word (was the street "bis rue de Rivoli").
  [{ line: "12, bis rue de Rivoli 75001 Paris" }, { houseNumber: "12", suffix: "b", street: "rue de Rivoli" }],
  [{ line: "12, rue de Rivoli 75001 Paris" }, { houseNumber: "12", suffix: null, street: "rue de Rivoli" }],
  [{ line: "42 A rue X 75001 Paris" }, { houseNumber: "42", suffix: "a" }],
  // House-number suffix letters: glued or spaced, any case, words folded to their letter, letters kept as letters.
  [{ line: "1C Rue Neuve 90400 Vézelois" }, { houseNumber: "1", suffix: "c", street: "Rue Neuve" }],
  [{ line: "1 c Rue Neuve 90400 Vézelois" }, { houseNumber: "1", suffix: "c", street: "Rue Neuve" }],
  [{ line: "12bis rue X 75001 Paris" }, { houseNumber: "12", suffix: "b", street: "rue X" }],
  [{ line: "12 b rue X 75001 Paris" }, { houseNumber: "12", suffix: "b", street: "rue X" }],
  [{ line: "12B rue X 75001 Paris" }, { houseNumber: "12", suffix: "b", street: "rue X" }],
  [{ line: "12 ter rue X 75001 Paris" }, { houseNumber: "12", suffix: "t", street: "rue X" }],
  [{ line: "12ter rue X 75001 Paris" }, { houseNumber: "12", suffix: "t", street: "rue X" }],
  [{ line: "12 TER, rue X 75001 Paris" }, { houseNumber: "12", suffix: "t", street: "rue X" }],
  [
    { line: "rue X 75001 Paris", house_number: "12B" },
    { houseNumber: "12", suffix: "b" },
  ],
  [
    { line: "rue X 75001 Paris", house_number: "12 c" },
    { houseNumber: "12", suffix: "c" },
  ],
  [
    { line: "26 lieu-dit Le Village 90400 Vézelois" },
    { houseNumber: "26", suffix: null, street: "lieu-dit Le Village" },
  ],
  [{ line: "26 ld Le Village 90400 Vézelois" }, { houseNumber: "26", suffix: null, street: "ld Le Village" }],
  [{ line: "Pont Alexandre 3, 75008 Paris" }, { houseNumber: "3", street: "Pont Alexandre", numberAfterStreet: true }],
  [{ line: "3 Pont Alexandre III, 75008 Paris" }, { houseNumber: "3", street: "Pont Alexandre III" }],
  [{ line: "241 r de la paix 75002 paris" }, { houseNumber: "241", suffix: null, street: "r de la paix" }],
  [{ line: "3 rue du 8 mai 1945 75010 Paris" }, { houseNumber: "3", street: "rue du 8 mai 1945", postcode: "75010" }],
  [{ line: "rue du 8 mai 1945 75010 Paris" }, { houseNumber: null, street: "rue du 8 mai 1945" }],
  [{ line: "0003 rue X 75010 Paris" }, { houseNumber: "3" }],
  [{ line: "12-14 rue X 75001 Paris, Bât B" }, { houseNumber: "12", street: "rue X", city: "Paris" }],
  [{ line: "4 à 8 rue X 75001 Paris" }, { houseNumber: "4", street: "rue X" }],
  [{ line: "12 rue de Rivoli, Bât B, 75001 Paris" }, { street: "rue de Rivoli", postcode: "75001" }],
  [{ line: "3 rue de Rivoli appartement 12 75001 Paris" }, { houseNumber: "3", street: "rue de Rivoli" }],
  [{ line: "3 rue de Rivoli bât. C esc 2 75001 Paris" }, { houseNumber: "3", street: "rue de Rivoli" }],
  // The ground floor, a letter box, a floor as "Et.", who to ring (each was the street's: street_not_found).
  [{ line: "3 rue de Rivoli rez-de-chaussée 75001 Paris" }, { houseNumber: "3", street: "rue de Rivoli" }],
  [{ line: "3 rue de Rivoli BAL 12 75001 Paris" }, { houseNumber: "3", street: "rue de Rivoli" }],
  [{ line: "3 rue de Rivoli Bât. A Esc. 2 Et. 3 Porte 12 75001 Paris" }, { houseNumber: "3", street: "rue de Rivoli" }],
  [{ line: "3 rue de Rivoli interphone Dupont 75001 Paris" }, { houseNumber: "3", street: "rue de Rivoli" }],
  [{ line: "3 rue de Rivoli sonner chez Martin 75001 Paris" }, { houseNumber: "3", street: "rue de Rivoli" }],
  // Guards: a name ending in such a word keeps it; "et" with no period is a word of the name.
  [{ line: "3 rue des Sonnettes 75001 Paris" }, { houseNumber: "3", street: "rue des Sonnettes" }],
  [{ line: "3 rue du Bal 75001 Paris" }, { houseNumber: "3", street: "rue du Bal" }],
  [{ line: "3 rue Pierre et Marie Curie 75005 Paris" }, { houseNumber: "3", street: "rue Pierre et Marie Curie" }],
  // The unit's number glued to its word (was the street's: street_not_found).
  [{ line: "3 rue de Rivoli appt12 75001 Paris" }, { houseNumber: "3", street: "rue de Rivoli" }],
  [
    { street: "5 avenue Anatole France bat2", postcode: "75007", city: "Paris" },
    { houseNumber: "5", street: "avenue Anatole France" },
  ],
  // A floor told by its side, without the word étage, the ground floor, the back of a courtyard; a bare ordinal stays.
  [{ line: "10 rue de la Paix 3e gauche 75002 Paris" }, { houseNumber: "10", street: "rue de la Paix" }],
  [{ line: "10 rue de la Paix 1er dr 75002 Paris" }, { houseNumber: "10", street: "rue de la Paix" }],
  [{ line: "10 rue de la Paix, 4eme g, 75002 Paris" }, { houseNumber: "10", street: "rue de la Paix" }],
  [{ line: "10 rue de la Paix RDC 75002 Paris" }, { houseNumber: "10", street: "rue de la Paix" }],
  [{ line: "10 rue de la Paix au fond de la cour 75002 Paris" }, { houseNumber: "10", street: "rue de la Paix" }],
  [{ line: "10 rue de la Paix, fond de cour, 75002 Paris" }, { houseNumber: "10", street: "rue de la Paix" }],
  [{ line: "1 Cour de Rome 8ème 75008 Paris" }, { houseNumber: "1", street: "Cour de Rome 8ème" }],
  [
    { street: "10 rue de la Paix 2e droite", postcode: "75002", city: "Paris" },
    { houseNumber: "10", street: "rue de la Paix" },
  ],
  // A whole line pasted into the street field beside the postcode and city fields: the fields stand over it.
  [
    { street: "10 rue de la Paix 75001 Paris", postcode: "75002", city: "Paris" },
    { houseNumber: "10", street: "rue de la Paix", postcode: "75002", city: "Paris" },
  ],
  [
    { street: "10 rue de la Paix, 75002 Paris, France", postcode: "75002" },
    { houseNumber: "10", street: "rue de la Paix", postcode: "75002", city: "Paris" },
  ],
  // A number alone in the street field is the house number, and no street.
  [
    { street: "10", postcode: "75002", city: "Paris" },
    { houseNumber: "10", street: null },
  ],
  [
    { street: "10 bis", postcode: "75002", city: "Paris" },
    { houseNumber: "10", suffix: "b", street: null },
  ],
  [{ line: "Apt 12, 3 rue de Rivoli 75001 Paris" }, { houseNumber: "3", street: "rue de Rivoli" }],
  [{ line: "Bâtiment B 3 rue de la Porte 75001 Paris" }, { houseNumber: "3", street: "rue de la Porte" }],
  [{ line: "12 rue de Rivoli, Paris" }, { postcode: null, city: "Paris", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli, Paris 75001" }, { postcode: "75001", city: "Paris", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli 75001" }, { postcode: "75001", city: null }],
  [{ line: "75001 Paris" }, { street: null, postcode: "75001", city: "Paris" }],
  // Pasted from web pages: zero-width spaces and soft hyphens inside words; full-width digits from Asian keyboards.
  [
    { line: "10 rue de Ri\u200bvo\u00adli 75004 Paris" },
    { houseNumber: "10", street: "rue de Rivoli", postcode: "75004" },
  ],
  [{ line: "１０ rue de Rivoli ７５００４ Paris" }, { houseNumber: "10", street: "rue de Rivoli", postcode: "75004" }],
  [
    { street: "\ufeff10 rue de Rivoli", postcode: "７５００４" },
    { houseNumber: "10", street: "rue de Rivoli", postcode: "75004" },
  ],
  // The number typed again after the street, as forms that join a number field and a street line do.
  [{ line: "10 rue de Rivoli 10 75004 Paris" }, { houseNumber: "10", street: "rue de Rivoli", postcode: "75004" }],
  [{ line: "10 bis rue de Rivoli 10 bis, 75004 Paris" }, { houseNumber: "10", suffix: "b", street: "rue de Rivoli" }],
  [{ line: "3 rue du 8 mai 1945 75010 Paris" }, { houseNumber: "3", street: "rue du 8 mai 1945" }],
  [{ line: "8 rue du 8 mai 1945 75010 Paris" }, { houseNumber: "8", street: "rue du 8 mai 1945" }],
  // A suffix alone in the house-number field, the number in the street field.
  [
    { house_number: "bis", street: "10 rue de Rivoli", postcode: "75004" },
    { houseNumber: "10", suffix: "b", street: "rue de Rivoli" },
  ],
  // A suffix word before the comma after the number, as French letters write it; the anglophone number sign.
  [{ line: "8 bis, rue de Rivoli 75004" }, { houseNumber: "8", suffix: "b", street: "rue de Rivoli", city: null }],
  [{ line: "8 ter, rue de Rivoli, Paris" }, { houseNumber: "8", suffix: "t", street: "rue de Rivoli", city: "Paris" }],
  [{ line: "#8 rue de Rivoli 75004 Paris" }, { houseNumber: "8", street: "rue de Rivoli", city: "Paris" }],
  // A field of punctuation only is an empty field.
  [
    { street: "10 rue de Rivoli", postcode: "-", city: "Paris" },
    { postcode: null, city: "Paris" },
  ],
  [
    { street: "10 rue de Rivoli", postcode: "75004", city: "." },
    { postcode: "75004", city: null },
  ],
  // The number in its own segment between the street and the city.
  [{ line: "rue de Rivoli, 8, Paris" }, { houseNumber: "8", street: "rue de Rivoli", city: "Paris" }],
  [{ line: "Apt 3, 8, rue de Rivoli" }, { houseNumber: "8", street: "rue de Rivoli", city: null }],
  [{ line: "Résidence les Lilas, 10 rue de Rivoli" }, { houseNumber: "10", street: "rue de Rivoli", city: null }],
  // The letter O typed for a zero in a postcode; a word of letters stays a word.
  [{ line: "10 rue de Rivoli 75OO4 Paris" }, { street: "rue de Rivoli", postcode: "75004", city: "Paris" }],
  [{ line: "10 rue de Rivoli, 75oo4" }, { street: "rue de Rivoli", postcode: "75004" }],
  [{ line: "10 rue de l'Oise 75019 Paris" }, { street: "rue de l'Oise", postcode: "75019" }],
  [
    { postcode: "750O4", city: "Paris" },
    { postcode: "75004", city: "Paris" },
  ],
  [{ postcode: "75OO4" }, { postcode: "75004", city: null }],
  [{ postcode: "Paris 4e" }, { postcode: null, city: "Paris 4e" }],
  [
    { line: "Immeuble Plein-Centre 60, avenue du Centre 78180 Montigny-le-Bretonneux" },
    { houseNumber: "60", street: "avenue du Centre", postcode: "78180", city: "Montigny-le-Bretonneux" },
  ],
  [
    { line: "20 avenue de Ségur TSA 30719 75334 Paris Cedex 07" },
    { houseNumber: "20", street: "avenue de Ségur", postcode: null, city: "Paris", cedexDepartement: "75" },
  ],
  [
    { line: "2 allée Jules Guesde BP 7015 31068 TOULOUSE" },
    { postcode: "31068", city: "TOULOUSE", street: "allée Jules Guesde" },
  ],
  [{ line: "Lieu-Dit Les Chênes 12345 Bourg" }, { street: "Les Chênes" }],
  [{ line: "12e étage 3 rue X 75001 Paris" }, { houseNumber: "3", street: "rue X" }],
  [
    { line: "32bis Rue des Vosges93290 Tremblay" },
    { houseNumber: "32", suffix: "b", postcode: "93290", city: "Tremblay" },
  ],
  [{ line: "10 Downing Street, London, United Kingdom" }, { country: "United Kingdom" }],
  [{ line: "12 rue de Rivoli 75001 Paris France" }, { country: "France", city: "Paris" }],
  [{ line: "8 rue X 75008 Paris, FR" }, { country: "FR", city: "Paris" }],
  // Fields override the line.
  [
    { line: "12 rue de Rivoli 75001 Paris", postcode: "75004" },
    { postcode: "75004", houseNumber: "12" },
  ],
  [
    { line: "12 rue de Rivoli 75001 Paris", house_number: "14 bis" },
    { houseNumber: "14", suffix: "b" },
  ],
  [
    { house_number: "12B", street: "rue de rivoli", postcode: "75001", city: "Paris" },
    { houseNumber: "12", suffix: "b", street: "rue de rivoli" },
  ],
  [
    { house_number: "12", street: "12 rue de rivoli" },
    { houseNumber: "12", street: "rue de rivoli" },
  ],
  [
    { street: "rue de rivoli", postcode: "75001", city: "PARIS CEDEX 01" },
    { postcode: null, cedexDepartement: "75", city: "PARIS" },
  ],
  [{ street: "rue X", postcode: "1000", city: "Bourg-en-Bresse" }, { postcode: "01000" }],
  [{ street: "rue X", postcode: "75 004", city: "Paris" }, { postcode: "75004" }],
  // A whole address in the street field (forms with one address box), with no line; fields given stand over it.
  [
    { street: "10 rue de Rivoli 75004 Paris" },
    { houseNumber: "10", street: "rue de Rivoli", postcode: "75004", city: "Paris" },
  ],
  [
    { street: "10 rue de Rivoli, 75004 Paris", house_number: "12" },
    { houseNumber: "12", street: "rue de Rivoli", postcode: "75004" },
  ],
  [
    { street: "10 rue de Rivoli 75004 Paris", postcode: "75001" },
    { houseNumber: "10", street: "rue de Rivoli", postcode: "75001", city: "Paris" },
  ],
  // Postcodes glued, spaced, numbers glued to the type, the locality first.
  [{ line: "10rue de Rivoli 75004 Paris" }, { houseNumber: "10", street: "rue de Rivoli" }],
  [{ line: "n°10 rue de Rivoli 75004 Paris" }, { houseNumber: "10", street: "rue de Rivoli" }],
  [{ line: "12ter rue X 75001 Paris" }, { houseNumber: "12", suffix: "t", street: "rue X" }],
  [{ line: "10 rue de Rivoli75004Paris" }, { postcode: "75004", city: "Paris", street: "rue de Rivoli" }],
  [
    { line: "Paris 75004 10 rue de Rivoli" },
    { houseNumber: "10", street: "rue de Rivoli", postcode: "75004", city: "Paris" },
  ],
  [{ line: "Paris 75016 3 Avenue de Pologne" }, { country: null, street: "Avenue de Pologne" }],
  [{ line: "10 rue de Rivoli Paris 75004 France" }, { country: "France", city: null, postcode: "75004" }],
  [{ line: "1 Rue Neuve, 1000 Bruxelles Belgique" }, { country: "Belgique" }],
  [{ line: "1 rue X 31330 Grenade" }, { country: null }],
  [{ line: "10 rue de Rivoli porte 3, 75004 Paris" }, { street: "rue de Rivoli" }],
  [{ line: "10 avenue de la Porte Didot, 75014 Paris" }, { street: "avenue de la Porte Didot" }],
  [{ line: "10 rue de Rivoli paris (75)" }, { street: "rue de Rivoli paris" }],
  [{ line: "8 r fbg Poissonnière 75010 Paris" }, { houseNumber: "8", suffix: null, street: "r fbg Poissonnière" }],
  [{ line: "10 rue rue de Rivoli 75004 Paris" }, { houseNumber: "10", street: "rue de Rivoli" }],
  [{ line: "3 r résal 75013 Paris" }, { houseNumber: "3", street: "r résal" }],
  // An article glued to its type or inside "de la", never to a name that begins the same way.
  [{ line: "2 ruede la Paix 75002 Paris" }, { houseNumber: "2", street: "rue de la Paix" }],
  [{ line: "2 avenuedu Maine 75014 Paris" }, { street: "avenue du Maine" }],
  [{ street: "rue dela Paix", postcode: "75002" }, { street: "rue de la Paix" }],
  [{ line: "2 avenue del'Opéra 75001 Paris" }, { street: "avenue de l'Opéra" }],
  [{ line: "2 rue des Pyramides 75001 Paris" }, { street: "rue des Pyramides" }],
  [{ line: "2 Grandes Arcades 75001 Paris" }, { street: "Grandes Arcades" }],
  [{ line: "10 rue Delacroix 75016 Paris" }, { street: "rue Delacroix" }],
  // Remarks, phone numbers and door codes pasted with the address.
  [{ line: "12 rue de Rivoli (cour), 75004 Paris" }, { street: "rue de Rivoli", postcode: "75004" }],
  [{ line: "12 rue de Rivoli (3e étage) 75004 Paris" }, { street: "rue de Rivoli", city: "Paris" }],
  [{ line: "RIVOLI (RUE DE) 12, 75004 PARIS" }, { street: "RUE DE RIVOLI" }],
  [{ line: "12 rue de Rivoli 75004 Paris tél : 06 12 34 56 78" }, { city: "Paris" }],
  [{ line: "12 rue de Rivoli 75004 Paris +33 6 12 34 56 78" }, { city: "Paris" }],
  [{ line: "12 rue de Rivoli 75004 Paris 0612345678" }, { city: "Paris" }],
  [{ line: "12 rue de Rivoli 75004 Paris digicode 1234A" }, { city: "Paris" }],
  [{ line: "12 rue de Rivoli 75004 Paris code 12A34" }, { city: "Paris" }],
  [{ line: "12 rue du Code 75004 Paris" }, { street: "rue du Code" }],
  // The postcode first, then the city, then the street; the country's letters or name before the postcode.
  [{ line: "75004 Paris, 12 rue de Rivoli" }, { houseNumber: "12", street: "rue de Rivoli", city: "Paris" }],
  [{ line: "75004 Paris 12 rue de Rivoli" }, { houseNumber: "12", street: "rue de Rivoli", city: "Paris" }],
  [{ line: "75004, 12 rue de Rivoli" }, { houseNumber: "12", street: "rue de Rivoli", city: null }],
  [{ line: "75001 Paris 1er 12 rue de Rivoli" }, { houseNumber: "12", city: "Paris 1er", postcode: "75001" }],
  [{ line: "75002 Paris 4 rue du 4 Septembre" }, { houseNumber: "4", street: "rue du 4 Septembre" }],
  [{ line: "12 rue de Rivoli F-75004 Paris" }, { postcode: "75004", city: "Paris", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli FR-75004 Paris" }, { postcode: "75004", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli F75004 Paris" }, { postcode: "75004", city: "Paris", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli 75.004 Paris" }, { postcode: "75004", city: "Paris", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli 75-004 Paris" }, { postcode: "75004", city: "Paris", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli, Paris4" }, { postcode: null, city: "Paris 4", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli, paris04e" }, { postcode: null, city: "paris 04e", street: "rue de Rivoli" }],
  [{ line: "France, 75004 Paris, 12 rue de Rivoli" }, { postcode: "75004", street: "rue de Rivoli" }],
  // The country before the postcode with no separator (was read as the street: Avenue de France).
  [{ line: "FRANCE 75004 PARIS 10 RUE DE RIVOLI" }, { postcode: "75004", street: "RUE DE RIVOLI" }],
  [{ line: "12 avenue de France 75013 Paris" }, { street: "avenue de France", postcode: "75013" }],
  // A suffix after a hyphen or a dot, a hyphen between the number and the street.
  [
    { line: "131-bis rue de la Roquette 75011 Paris" },
    { houseNumber: "131", suffix: "b", street: "rue de la Roquette" },
  ],
  [{ line: "131.B rue de la Roquette 75011 Paris" }, { houseNumber: "131", suffix: "b" }],
  [{ line: "89-a rue de la Roquette 75011 Paris" }, { houseNumber: "89", suffix: "a" }],
  [{ line: "12-rue de Rivoli 75004 Paris" }, { houseNumber: "12", suffix: null, street: "rue de Rivoli" }],
  [{ line: "12-14 rue de Rivoli 75004 Paris" }, { houseNumber: "12", suffix: null, street: "rue de Rivoli" }],
  [
    { house_number: "12-bis", street: "rue de Rivoli" },
    { houseNumber: "12", suffix: "b" },
  ],
  // Ranges with "et", corners, quotes, the number sign after the street.
  [{ line: "12 et 14 rue de Rivoli 75004 Paris" }, { houseNumber: "12", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli angle rue du Renard 75004 Paris" }, { houseNumber: "12", street: "rue de Rivoli" }],
  [{ line: "12 rue de Rivoli à l'angle de la rue du Renard, 75004 Paris" }, { street: "rue de Rivoli" }],
  [{ line: "angle rue de Rivoli et rue du Renard 75004 Paris" }, { houseNumber: null, street: "rue de Rivoli" }],
  [{ line: "10 impasse de l'Angle 75001 Paris" }, { street: "impasse de l'Angle" }],
  [{ line: '"12 rue de Rivoli, 75004 Paris"' }, { street: "rue de Rivoli", city: "Paris" }],
  [{ line: "Rue de Rivoli n°12 75004 Paris" }, { houseNumber: "12", street: "Rue de Rivoli" }],
  [{ line: "Rue de Rivoli, n° 12, 75004 Paris" }, { houseNumber: "12", street: "Rue de Rivoli" }],
  // Fields as forms fill them: the postcode in the city field or the city in the postcode field, the two swapped,
  // "n°" before the number, the whole street in the number field.
  [
    { street: "rue de Rivoli", city: "75004 Paris" },
    { postcode: "75004", city: "Paris" },
  ],
  [
    { street: "rue de Rivoli", postcode: "75004", city: "Paris 75004" },
    { postcode: "75004", city: "Paris" },
  ],
  [
    { street: "rue de Rivoli", postcode: "75001", city: "Paris 75004" },
    { postcode: "75001", city: "Paris 75004" },
  ],
  [
    { street: "rue de Rivoli", postcode: "75004 Paris" },
    { postcode: "75004", city: "Paris" },
  ],
  [
    { street: "rue de Rivoli", postcode: "Paris", city: "75004" },
    { postcode: "75004", city: "Paris" },
  ],
  [
    { street: "rue de Rivoli", house_number: "n° 12" },
    { houseNumber: "12", street: "rue de Rivoli" },
  ],
  [
    { street: "rue de Rivoli", house_number: "No 12 bis" },
    { houseNumber: "12", suffix: "b" },
  ],
  [
    { house_number: "12 rue de Rivoli", postcode: "75004" },
    { houseNumber: "12", street: "rue de Rivoli" },
  ],
  [
    { house_number: "12 bis", street: "rue de Rivoli" },
    { houseNumber: "12", suffix: "b", street: "rue de Rivoli" },
  ],
  [{ street: "rue de Rivoli", postcode: "75004", city: "Paris Cedex 04" }, { city: "Paris" }],
  [{ line: "10 RIVOLI (RUE DE) 75004 PARIS" }, { houseNumber: "10", street: "RUE DE RIVOLI" }],
  [{ line: "rue de Rivoli, 10, 75004 Paris" }, { houseNumber: "10", street: "rue de Rivoli" }],
  [{ line: "10 rue de Rivoli 75004 Paris 75004" }, { postcode: "75004", city: "Paris" }],
  [{ line: "241 r rue de Rivoli 75001 Paris" }, { houseNumber: "241", suffix: "r", street: "rue de Rivoli" }],
  [{ country: "de" }, { country: "de", street: null }],
  [{}, { houseNumber: null, street: null, postcode: null, city: null, country: null }],
];

for (const [input, expected] of CASES) {
  test(`parseAddress() reads ${JSON.stringify(input)}`, () => {
    const parsed = parseAddress(input);
    for (const [k, v] of Object.entries(expected)) assert.equal(parsed[k as keyof ParsedAddress], v, k);
  });
}

test("readHouseNumber() keeps a lone letter as the type when no type follows", () => {
  assert.deepEqual(readHouseNumber("241 r de la paix"), { number: "241", suffix: null, rest: "r de la paix" });
  assert.deepEqual(readHouseNumber("241 r rue de la paix"), { number: "241", suffix: "r", rest: "rue de la paix" });
  assert.equal(readHouseNumber("75001 Paris"), null);
  assert.equal(readHouseNumber("rue X"), null);
});

test("isFrance() accepts alpha-2, alpha-3 and names in any case", () => {
  for (const v of ["FR", "fr", "FRA", "fra", "France", "FRANCE", "france", "République française", "RE", "Guadeloupe"])
    assert.ok(isFrance(v), v);
  // ISO numeric, and France's name as the forms of neighbouring countries write it (were country_not_covered).
  for (const v of ["250", " 250 ", "638", "Frankreich", "Francia", "Frankrijk", "França"]) assert.ok(isFrance(v), v);
  for (const v of ["276", "056", "Deutschland", "España"]) assert.ok(!isFrance(v), v);
  for (const v of ["DE", "DEU", "Germany", "Allemagne", "BE", "Belgique", "US", "xx"]) assert.ok(!isFrance(v), v);
});

test("splitCountry() takes a trailing country off a line, and nothing else", () => {
  assert.deepEqual(splitCountry("1 rue X 75001 Paris, Belgique"), {
    rest: "1 rue X 75001 Paris",
    country: "Belgique",
    from: "segment",
  });
  assert.deepEqual(splitCountry("1 rue X 1000 Bruxelles, BE"), {
    rest: "1 rue X 1000 Bruxelles",
    country: "BE",
    from: "segment",
  });
  assert.deepEqual(splitCountry("1 rue X, 75001 Paris"), { rest: "1 rue X, 75001 Paris", country: null, from: null });
  assert.deepEqual(splitCountry("1 rue X 75001 Paris Allemagne"), {
    rest: "1 rue X 75001 Paris",
    country: "Allemagne",
    from: "words",
  });
  // A French région of several words is the whole text after the postcode: no city is left before it.
  assert.deepEqual(splitCountry("1 rue X 97400 La Réunion"), {
    rest: "1 rue X 97400",
    country: "La Réunion",
    from: "words",
  });
  // The locality first, a street named after a country last: the street's name, no country.
  for (const line of [
    "75008 Paris, 35 Avenue Pierre Ier de Serbie",
    "75013 Paris, Rue de Sainte-Hélène 3",
    "75008 Paris 35 Avenue Pierre Ier de Serbie",
  ])
    assert.deepEqual(splitCountry(line), { rest: line, country: null, from: null }, line);
});

test("parseAddress() keeps an unknown suffix word as written", () => {
  assert.equal(parseAddress({ house_number: "12 constructor" }).suffix, "constructor");
});

test("parseAddress() keeps street words that start like a unit word", () => {
  for (const street of ["Rue de la Chine", "Rue de la Bataille", "Rue de l'Escaut", "Passage de l'Appel"]) {
    assert.equal(parseAddress({ line: `3 ${street} 75020 Paris` }).street, street);
  }
});

test("parseAddress() sets apart the words before the street when no city is read, for the matcher to tell", () => {
  const cases: Array<[string, { city: string; street: string } | undefined, string | null, string | null]> = [
    // line, cityFirst, street, house number
    ["PARIS 10 RUE DE RIVOLI", { city: "PARIS", street: "RUE DE RIVOLI" }, "RUE DE RIVOLI", "10"],
    ["Paris, rue de Rivoli 10", { city: "Paris", street: "rue de Rivoli" }, "rue de Rivoli", "10"],
    ["Paris rue de Rivoli 10", { city: "Paris", street: "rue de Rivoli" }, "Paris rue de Rivoli", "10"],
    [
      "Résidence les Lilas, 10 rue de l'Université",
      { city: "Résidence les Lilas", street: "rue de l'Université" },
      "rue de l'Université",
      "10",
    ],
    // A city read, or a street that starts the line: nothing set apart.
    ["10 rue de Rivoli, Paris", undefined, "rue de Rivoli", "10"],
    ["rue de Rivoli 10", undefined, "rue de Rivoli", "10"],
    ["Paris 10 rue de Rivoli, 75004 Paris", undefined, "rue de Rivoli", "10"],
  ];
  for (const [line, cityFirst, street, number] of cases) {
    const p = parseAddress({ line });
    assert.deepEqual(p.cityFirst, cityFirst, line);
    assert.equal(p.street, street, line);
    assert.equal(p.houseNumber, number, line);
  }
  // No type word to stop at: the number between the words and the name is kept apart with them.
  assert.deepEqual(parseAddress({ line: "PARIS 2 bis PÉRISTYLE DE BEAUJOLAIS" }).cityFirst, {
    city: "PARIS",
    street: "PÉRISTYLE DE BEAUJOLAIS",
    houseNumber: "2",
    suffix: "b",
  });
  // A street field given: the line's words are not the street read.
  assert.equal(parseAddress({ line: "Paris 10 rue de Rivoli", street: "12 rue de Rivoli" }).cityFirst, undefined);
});

test("parseAddress() reads the numbered street after a name's segment, even one that starts with a type", () => {
  for (const line of [
    "Résidence les Lilas, rue de l'Université 10, 75007 Paris",
    "Jean Dupont, rue de l'Université 10, 75007 Paris",
  ]) {
    const p = parseAddress({ line });
    assert.equal(p.street, "rue de l'Université", line);
    assert.equal(p.houseNumber, "10", line);
  }
  // A first segment that is a street keeps its place: "Rue de Rivoli, Bât B".
  assert.equal(parseAddress({ line: "Rue de Rivoli 10, Bât B, 75004 Paris" }).street, "Rue de Rivoli");
  assert.equal(parseAddress({ line: "Villa Poirier, 75015 Paris" }).street, "Villa Poirier");
});

test("parseAddress() keeps street names that hold a building word after an article", () => {
  for (const street of ["Rue de la Résidence", "Allée de l'Immeuble Vert", "Résidence Les Lilas"]) {
    assert.equal(parseAddress({ line: `3 ${street} 90400 Vézelois` }).street, street, street);
  }
  assert.equal(parseAddress({ line: "3 Rue Neuve Rés Les Lilas 90400 Vézelois" }).street, "Rue Neuve");
});

test("parseAddress() reads the type written after the name only where it is English or ends a name", () => {
  assert.equal(parseAddress({ line: "10 Rivoli Street 75004 Paris" }).street, "rue Rivoli");
  assert.equal(parseAddress({ line: "10 Champs Elysees Avenue 75008 Paris" }).street, "avenue Champs Elysees");
  // An English type after a name that begins with a French one ("faubourg" is a type of BAN too).
  assert.equal(
    parseAddress({ line: "83 Faubourg Poissonnière Street 75009 Paris" }).street,
    "rue Faubourg Poissonnière",
  );
  // A name that ends with a type word after an article, or that starts with a type, stays as written.
  assert.equal(parseAddress({ line: "10 Le Boulevard 90400 Vézelois" }).street, "Le Boulevard");
  assert.equal(parseAddress({ line: "10 Rue de la Place 90400 Vézelois" }).street, "Rue de la Place");
  assert.equal(parseAddress({ line: "10 Avenue of the Champs-Elysees 75008 Paris" }).street, "Avenue Champs-Elysees");
});

test("splitCountry() leaves France at the end of a line without a postcode to the matcher: it may end a name", () => {
  for (const line of ["10 rue de Rivoli Paris France", "6 quai Anatole France", "1 rue de la Paix Tremblay en France"])
    assert.deepEqual(splitCountry(line), { rest: line, country: null, from: null }, line);
});

test("parseAddress() reads what web forms leave in a text: entities, URL encoding, quotes, an e-mail beside it", () => {
  const expected = { houseNumber: "10", street: "rue de l'Université", postcode: "75007", city: "Paris" };
  for (const line of [
    "10 rue de l&#39;Universit&eacute; 75007 Paris",
    "10 rue de l&#x27;Université 75007 Paris",
    "10 rue de l&apos;Université 75007 Paris",
    "10%20rue%20de%20l'Universit%C3%A9%2075007%20Paris",
    "10+rue+de+l'Université+75007+Paris",
    "10 rue de l'Université\\n75007 Paris",
    "'10 rue de l'Université 75007 Paris'",
    "“10 rue de l'Université 75007 Paris”",
    "10 rue de l'Université 75007 Paris jean.dupont@example.com",
    // Markup copied from a page, empty values a program wrote as words, a remark in square brackets.
    "10 rue de l'Université<br>75007 Paris",
    "10 rue de l'Université <BR /> 75007 Paris",
    "<p>10 rue de l'Université</p><p>75007 Paris</p>",
    "10 rue de l'Université null 75007 Paris",
    "10 rue de l'Université 75007 Paris undefined",
    "10 rue de l'Université 75007 Paris [bureau]",
  ]) {
    const p = parseAddress({ line });
    assert.deepEqual(
      { houseNumber: p.houseNumber, street: p.street, postcode: p.postcode, city: p.city },
      expected,
      line,
    );
  }
  // UTF-8 misread as Windows-1252 on its way (a spreadsheet, an export), read again; a letter lost as "?" or U+FFFD
  // inside a word taken out, for the matcher to correct.
  assert.equal(
    parseAddress({ line: "10 rue de la ChaussÃ©e dâ€™Antin 75009 Paris" }).street,
    "rue de la Chaussée d’Antin",
  );
  assert.equal(parseAddress({ city: "SÃ¨vres" }).city, "Sèvres");
  assert.equal(parseAddress({ street: "10 rue Ã  la Mode" }).street, "rue à la Mode");
  assert.equal(parseAddress({ street: "10 place de la R?publique" }).street, "place de la Rpublique");
  assert.equal(parseAddress({ street: "10 place de la R\ufffd\ufffdpublique" }).street, "place de la Rpublique");
  // Text that is no misreading stays as written: letters of other languages, a mark that no reading of UTF-8 gives.
  assert.equal(parseAddress({ city: "Ã… Ã" }).city, "Ã… Ã");
  assert.equal(parseAddress({ street: "10 rue São Paulo" }).street, "rue São Paulo");
  // A percent sign that is no encoding, an ampersand that is no entity: the text as written.
  assert.equal(parseAddress({ line: "10 rue X&Y 75007 Paris" }).street, "rue X&Y");
  assert.equal(parseAddress({ city: "L'Haÿ-les-Roses" }).city, "L'Haÿ-les-Roses");
  assert.equal(parseAddress({ street: "50%" }).street, "50%");
  // A field a program left as "null" is an empty field; a word that begins so is a word.
  assert.equal(parseAddress({ street: "10 rue de l'Université", postcode: "75007", city: "null" }).city, null);
  assert.equal(parseAddress({ street: "10 rue Nullet" }).street, "rue Nullet");
});
