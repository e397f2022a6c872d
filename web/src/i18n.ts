/** The shell's own strings in English and French, and the chosen language (kept in localStorage). */
import type { Lang, Messages } from "./games/contract";

const KEY = "masques.lang";

export function initialLang(): Lang {
  const saved = localStorage.getItem(KEY);
  if (saved === "en" || saved === "fr") return saved;
  return navigator.language.toLowerCase().startsWith("fr") ? "fr" : "en";
}

export function saveLang(lang: Lang): void {
  localStorage.setItem(KEY, lang);
}

/** Fill `{name}` placeholders. */
export function format(text: string, params?: Record<string, string | number>): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** A translator over one message table; falls back to English, then to the key itself. */
export function translator(messages: Messages, lang: () => Lang) {
  return (key: string, params?: Record<string, string | number>): string =>
    format(messages[lang()][key] ?? messages.en[key] ?? key, params);
}

export const SHELL: Messages = {
  en: {
    title: "Masques",
    tagline: "Four mask board games, against friends or bots.",
    lang_switch: "Français",
    lobby: "Lobby",
    you: "You",
    bot: "{level} bot",
    open_seat: "open seat",
    seat: "Seat {n}",
    connecting: "Connecting…",
    reconnecting: "Connection lost — reconnecting…",
    waiting_players: "Waiting for players to join",
    share: "Others join from the lobby, or at this address:",
    your_turn: "Your turn",
    turn_of: "{name} to move",
    game_over: "Game over",
    spectating: "You are watching",
    log: "Moves",
    no_log: "No moves yet.",
    join: "Join",
    join_as: "Join as seat {n}",
    your_name: "Your name",
    spectate: "Watch",
    play: "Play",
    replay: "Replay",
    rematch: "Rematch",
    winner: "Winner: {names}",
    winners: "Winners: {names}",
    draw: "Draw",
    score: "Score",
    back_lobby: "Back to the lobby",
    legal_moves: "Your moves",
    error: "Error: {message}",
    not_found: "No such match.",
    step: "Step {n} of {total}",
    first: "First",
    prev: "Previous",
    next: "Next",
    last: "Last",
    live: "Back to the live match",
  },
  fr: {
    title: "Masques",
    tagline: "Quatre jeux de masques, entre amis ou contre des robots.",
    lang_switch: "English",
    lobby: "Salon",
    you: "Vous",
    bot: "robot {level}",
    open_seat: "place libre",
    seat: "Place {n}",
    connecting: "Connexion…",
    reconnecting: "Connexion perdue — reconnexion…",
    waiting_players: "En attente des joueurs",
    share: "Les autres rejoignent depuis le salon, ou à cette adresse :",
    your_turn: "À vous de jouer",
    turn_of: "Au tour de {name}",
    game_over: "Partie terminée",
    spectating: "Vous regardez la partie",
    log: "Coups",
    no_log: "Aucun coup pour l'instant.",
    join: "Rejoindre",
    join_as: "Prendre la place {n}",
    your_name: "Votre nom",
    spectate: "Regarder",
    play: "Jouer",
    replay: "Revoir",
    rematch: "Revanche",
    winner: "Gagnant : {names}",
    winners: "Gagnants : {names}",
    draw: "Égalité",
    score: "Score",
    back_lobby: "Retour au salon",
    legal_moves: "Vos coups",
    error: "Erreur : {message}",
    not_found: "Cette partie n'existe pas.",
    step: "Étape {n} sur {total}",
    first: "Début",
    prev: "Précédent",
    next: "Suivant",
    last: "Fin",
    live: "Retour à la partie en cours",
  },
};
