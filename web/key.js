// The API key pasted into the page: kept in memory, and in this tab's sessionStorage only when the person ticks the
// box (cleared when unticked). Never in localStorage, a cookie or a URL.
const STORAGE_NAME = "vrai.key";

export function keyHolder(input, remember) {
  let stored = null;
  try {
    stored = sessionStorage.getItem(STORAGE_NAME);
  } catch {
    // storage refused (privacy settings): memory only
  }
  if (stored) {
    input.value = stored;
    remember.checked = true;
  }
  const save = () => {
    try {
      if (remember.checked && input.value.trim()) sessionStorage.setItem(STORAGE_NAME, input.value.trim());
      else sessionStorage.removeItem(STORAGE_NAME);
    } catch {
      // memory only
    }
  };
  input.addEventListener("input", save);
  remember.addEventListener("change", save);
  return { get: () => input.value.trim(), focus: () => input.focus() };
}
