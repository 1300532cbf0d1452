// Words of a street named after someone that people leave out or add: the title ("Rue du Commandant René Mouchotte"
// written "rue René Mouchotte", "Avenue Foch" written "avenue du Maréchal Foch") and the given names ("avenue Jaurès"
// for Avenue Jean Jaurès, "rue Pierre Curie" for Rue Pierre et Marie Curie). In match-key form: lower case, accents
// folded, one word per part of a hyphenated name (expand_abbrev.ts has already spelt out "gal", "mal", "pdt", "dr").
// The given names are those of the people French streets are most often named after; a name missing here only means
// the search that leaves words out (match/left_out_words.ts) does not find that street, never a wrong street.

/** Titles, ranks and forms of address written before a name. */
const TITLES = `
  abbe adjudant amiral aspirant aviateur baron capitaine cardinal caporal chanoine chef colonel commandant comte
  docteur duc general ingenieur lieutenant madame mademoiselle marechal marquis monseigneur monsieur pasteur pere
  president professeur recteur sergent
`;

/** Men's names, then women's. */
const GIVEN_NAMES = `
  achille adolphe adrien alain albert alexandre alexis alfred alphonse amedee anatole andre antoine aristide
  armand arthur auguste augustin benjamin benoit bernard camille cesar charles christian christophe claude clement
  constant daniel denis desire edgar edmond edouard emile emmanuel ernest etienne eugene felix ferdinand fernand
  firmin francis francois frederic gabriel gaspard gaston georges gerard gilbert guillaume gustave guy hector
  henri hippolyte honore hubert hugues ignace isidore jacques jean jerome joseph jules julien lazare leon leonard
  leonce leopold louis luc lucien marc marcel marcellin marius martial mathieu mathurin max maxime maximilien
  michel narcisse nicolas noel norbert octave odilon olivier oscar pascal paul paulin philibert philippe pierre
  prosper quentin raoul raymond remi remy rene richard robert roger roland romain samuel sebastien serge simon
  stephane sylvain theodore theophile thierry thomas tristan urbain valentin victor vincent xavier yves yvon

  adele agnes alice aline amelie anna anne antoinette augustine berthe camille caroline catherine cecile celine
  charlotte christine clara clemence colette danielle denise edith elisabeth elise emilie emma eugenie flora
  florence francoise gabrielle genevieve germaine gisele helene henriette hortense irene isabelle jacqueline
  jeanne josephine julie juliette laure leonie lili louise lucie lucienne lucile madeleine marcelle marguerite
  marie marthe mathilde mireille monique nadia nicole odette olga olympe paule pauline renee sarah simone solange
  sophie suzanne therese valentine victorine virginie yvonne
`;

const words = (list: string) => list.trim().split(/\s+/);
const TITLE_WORDS: ReadonlySet<string> = new Set(words(TITLES));
const LEFT_OUT_WORDS: ReadonlySet<string> = new Set([...TITLE_WORDS, ...words(GIVEN_NAMES)]);

/** A title or given name, which a written street name may leave out or add (match key form). */
export function isTitleOrGivenName(word: string): boolean {
  return LEFT_OUT_WORDS.has(word);
}

/** A title: the word after it, when a family name still follows, is a given name, listed or not ("Général Martial
 *  Valin"). */
export function isTitle(word: string): boolean {
  return TITLE_WORDS.has(word);
}
