/** Short rules summaries for the lobby, in the project's own words (English and French). */
import type { Lang } from "./games/contract";

export const RULES: Record<string, Record<Lang, string>> = {
  masker: {
    en:
      "A grid of coloured crosses and one runner. Each turn, move the runner one to three steps onto " +
      "neighbouring crosses and keep what you capture; a white cross gives a free jump anywhere. Your colour " +
      "is secret: you are out when no cross of it is left, so capture the others' colours while hiding your own. " +
      "The last player standing wins.",
    fr:
      "Une grille de croix colorées et un coureur. À votre tour, déplacez le coureur d'une à trois cases sur " +
      "des croix voisines et gardez ce que vous prenez ; une croix blanche offre un saut libre n'importe où. " +
      "Votre couleur est secrète : vous êtes éliminé quand il n'en reste plus, alors prenez celles des autres " +
      "sans trahir la vôtre. Le dernier en lice gagne.",
  },
  maske: {
    en:
      "Two sticks each on a plate of holes, and a mask laid on top: its single rings pay 3 and its double " +
      "rings pay 5 on payday. Spend points to step your sticks onto the rings, or bid for action cards that " +
      "jump sticks, move points or turn the mask. When the last mask has paid, the most points wins.",
    fr:
      "Deux bâtons chacun sur une plaque percée, et un masque posé dessus : ses anneaux simples rapportent 3 " +
      "et ses anneaux doubles 5 au jour de paie. Dépensez des points pour avancer vos bâtons vers les anneaux, " +
      "ou enchérissez sur des cartes action qui font sauter des bâtons, déplacent des points ou tournent le " +
      "masque. Après la paie du dernier masque, le plus riche gagne.",
  },
  mascarade: {
    en:
      "Masks with five features — face, hair, eyes, nose, mouth. Lay a card of your hand next to the cards on " +
      "the board: it must share at least one feature with each neighbour. Refill to five after each card; " +
      "when nothing fits you draw. Empty your hand once the pool is empty to win. In the scoring variant, " +
      "every shared feature scores a point.",
    fr:
      "Des masques à cinq traits — visage, cheveux, yeux, nez, bouche. Posez une carte de votre main à côté " +
      "des cartes du plateau : elle doit partager au moins un trait avec chaque voisine. Complétez votre main " +
      "à cinq après chaque carte ; si rien ne va, vous piochez. Videz votre main une fois la pioche épuisée " +
      "pour gagner. Dans la variante à points, chaque trait partagé rapporte un point.",
  },
  blokus3d: {
    en:
      "Build a structure together from small blocks of 2 to 4 cubes. Each piece must fit inside the " +
      "structure's outline and height limits, rest flat on what is already built, and touch a cube of your " +
      "own colour face to face. A colour that cannot place drops out. At the end, each square of your " +
      "colour seen from above scores a point, minus one per piece left over.",
    fr:
      "Construisez ensemble une structure avec de petits blocs de 2 à 4 cubes. Chaque pièce doit tenir dans " +
      "le contour et les hauteurs de la structure, reposer à plat sur ce qui est déjà bâti et toucher par une " +
      "face un cube de votre couleur. Une couleur qui ne peut plus poser sort du jeu. À la fin, chaque case " +
      "de votre couleur vue de dessus rapporte un point, moins un par pièce restante.",
  },
};
