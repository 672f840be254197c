// Passkeys in the browser (docs/protocol.md, "Passkeys"): the server's WebAuthn options, given as JSON, turned
// into what navigator.credentials takes, and the credential it gives back turned into JSON again.  Browsers
// that have PublicKeyCredential.parseCreationOptionsFromJSON and toJSON do the same; these work on the others.

/** Can this browser make and use passkeys? */
export function passkeysHere() {
  return typeof window.PublicKeyCredential === "function" && !!navigator.credentials;
}

export function fromBase64url(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
}

export function toBase64url(buffer) {
  let binary = "";
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const withIds = (list) => (list || []).map((key) => ({ ...key, id: fromBase64url(key.id) }));

/** ``navigator.credentials.create``'s options, from the server's JSON. */
export function creationOptions(json) {
  return {
    ...json,
    challenge: fromBase64url(json.challenge),
    user: { ...json.user, id: fromBase64url(json.user.id) },
    excludeCredentials: withIds(json.excludeCredentials),
  };
}

/** ``navigator.credentials.get``'s options, from the server's JSON. */
export function requestOptions(json) {
  return { ...json, challenge: fromBase64url(json.challenge), allowCredentials: withIds(json.allowCredentials) };
}

/** The credential the browser gave, as the server reads it (WebAuthn's ``toJSON``). */
export function credentialJSON(credential) {
  const response = {};
  for (const name of ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle"]) {
    if (credential.response[name]) response[name] = toBase64url(credential.response[name]);
  }
  if (typeof credential.response.getTransports === "function") response.transports = credential.response.getTransports();
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  };
}
