//! The vocabulary ([F5](crate::rules#f5)): the secret words and phrases, their index, and how an entry
//! matches at a word.

use std::ops::Range;

use super::words::{ByteSet, Word, Words};
use super::SecretKind;

/// One entry: a phrase of one or more word patterns.
///
/// A word pattern is written folded (lowercase, no accents) and is:
/// - `word`: the word exactly;
/// - `word~`: the word or its plural in `s`/`es`;
/// - `word*`: a word starting with `word` (inflected languages: `парол*`);
/// - `*word`: a word containing `word` (glued identifiers `userpassword`, and scripts
///   written without spaces: `请输入密码`).
pub(super) struct Entry {
    pub(super) words: &'static [&'static str],
    pub(super) term: &'static str,
    pub(super) kind: SecretKind,
    guard: Guard,
    /// The first word must contain none of these (`*secret` spares `secretary`).
    unless: &'static [&'static str],
    /// The bytes the first word must contain, to rule an entry out in a few instructions.
    pub(super) needs: ByteSet,
}

/// Extra conditions for words that are ordinary vocabulary in another sense.
#[derive(Clone, Copy)]
enum Guard {
    None,
    /// `pin`, `pat`: only in capitals, or as the last word of a property name.
    Abbreviation,
    /// `token`: not beside a language-model or cryptocurrency word (`max_tokens`).
    BareToken,
}

const fn e(words: &'static [&'static str], term: &'static str, kind: SecretKind) -> Entry {
    Entry {
        words,
        term,
        kind,
        guard: Guard::None,
        unless: &[],
        needs: ByteSet::of_pattern(words[0]),
    }
}

const fn guarded(
    words: &'static [&'static str],
    term: &'static str,
    kind: SecretKind,
    guard: Guard,
) -> Entry {
    Entry {
        words,
        term,
        kind,
        guard,
        unless: &[],
        needs: ByteSet::of_pattern(words[0]),
    }
}

impl Entry {
    const fn unless(self, unless: &'static [&'static str]) -> Entry {
        Entry { unless, ..self }
    }
}

use SecretKind as K;

/// Everything `find_secret` looks for. Order matters only between phrases of the same
/// length matching at the same word.
// One entry a line, so the table reads as a table.
#[rustfmt::skip]
pub(super) const VOCABULARY: &[Entry] = &[
    // --- passwords -----------------------------------------------------------------
    e(&["*password"], "password", K::Password).unless(&["passwordless"]),
    e(&["pass", "word~"], "password", K::Password),
    e(&["*passwd"], "passwd", K::Password),
    e(&["pwd"], "pwd", K::Password),
    e(&["pw"], "pw", K::Password),
    e(&["pword"], "pword", K::Password),
    e(&["*passphrase"], "passphrase", K::Password),
    e(&["pass", "phrase~"], "passphrase", K::Password),
    e(&["*passcode"], "passcode", K::Password),
    e(&["pass", "code~"], "passcode", K::Password),
    e(&["*passkey"], "passkey", K::Password),
    e(&["psk"], "pre-shared key", K::Password),
    e(&["pre", "shared", "key~"], "pre-shared key", K::Password),
    e(&["access", "code~"], "access code", K::Password),
    e(&["memorable", "word~"], "memorable word", K::Password),
    e(&["*passwort"], "passwort", K::Password),
    e(&["*kennwort"], "kennwort", K::Password),
    e(&["mot~", "de", "passe"], "mot de passe", K::Password),
    e(&["mdp"], "mdp", K::Password),
    e(&["*contrasena"], "contraseña", K::Password),
    e(&["clave~", "de", "acceso"], "clave de acceso", K::Password),
    e(&["senha~"], "senha", K::Password),
    e(&["*wachtwoord"], "wachtwoord", K::Password),
    e(&["*salasana"], "salasana", K::Password),
    e(&["*losenord"], "lösenord", K::Password),
    e(&["*passord"], "passord", K::Password),
    e(&["*adgangskode"], "adgangskode", K::Password),
    e(&["hasl*"], "hasło", K::Password).unless(&["haslet"]),
    e(&["hesl*"], "heslo", K::Password),
    e(&["*jelszo"], "jelszó", K::Password),
    e(&["sifre*"], "şifre", K::Password),
    e(&["kata", "sandi"], "kata sandi", K::Password),
    e(&["kata", "laluan"], "kata laluan", K::Password),
    e(&["mat", "khau"], "mật khẩu", K::Password),
    e(&["κωδικοσ", "προσβασησ"], "κωδικός πρόσβασης", K::Password),
    e(&["парол*"], "пароль", K::Password),
    e(&["*密码"], "密码", K::Password).unless(&["密码学"]),
    e(&["*密碼"], "密碼", K::Password).unless(&["密碼學"]),
    e(&["*口令"], "口令", K::Password),
    e(&["*パスワード"], "パスワード", K::Password),
    e(&["*비밀번호"], "비밀번호", K::Password),
    e(&["*סיסמ"], "סיסמה", K::Password),
    e(&["كلمة", "المرور"], "كلمة المرور", K::Password),
    e(&["كلمة", "السر"], "كلمة السر", K::Password),
    e(&["*पासवर्ड"], "पासवर्ड", K::Password),
    e(&["*รหัสผ่าน"], "รหัสผ่าน", K::Password),
    // --- PINs ------------------------------------------------------------------------
    guarded(&["pin"], "pin", K::Pin, Guard::Abbreviation),
    e(&["pin", "code~"], "pin code", K::Pin),
    e(&["pin", "number~"], "pin number", K::Pin),
    e(&["pin", "no"], "pin number", K::Pin),
    e(&["*pincode"], "pin code", K::Pin),
    e(&["*pinnumber"], "pin number", K::Pin),
    e(&["card", "pin~"], "card pin", K::Pin),
    e(&["sim", "pin~"], "sim pin", K::Pin),
    e(&["atm", "pin~"], "atm pin", K::Pin),
    e(&["bank", "pin~"], "bank pin", K::Pin),
    e(&["debit", "pin~"], "debit pin", K::Pin),
    e(&["digit", "pin~"], "pin", K::Pin),
    e(&["enter", "pin"], "pin", K::Pin),
    e(&["enter", "your", "pin"], "pin", K::Pin),
    e(&["enter", "the", "pin"], "pin", K::Pin),
    e(&["current", "pin"], "pin", K::Pin),
    e(&["confirm", "pin"], "pin", K::Pin),
    e(&["personal", "identification", "number~"], "personal identification number", K::Pin),
    e(&["*geheimzahl"], "geheimzahl", K::Pin),
    e(&["code", "pin"], "code pin", K::Pin),
    e(&["пин", "код*"], "пин-код", K::Pin),
    e(&["пинкод*"], "пин-код", K::Pin),
    e(&["*暗証番号"], "暗証番号", K::Pin),
    // --- API keys --------------------------------------------------------------------
    e(&["api", "key~"], "api key", K::ApiKey),
    e(&["*apikey"], "api key", K::ApiKey),
    e(&["access", "key~"], "access key", K::ApiKey),
    e(&["*accesskey"], "access key", K::ApiKey),
    e(&["developer", "key~"], "developer key", K::ApiKey),
    e(&["subscription", "key~"], "subscription key", K::ApiKey),
    e(&["cle~", "api"], "clé API", K::ApiKey),
    e(&["cle~", "d", "api"], "clé API", K::ApiKey),
    e(&["clave~", "api"], "clave API", K::ApiKey),
    e(&["clave~", "de", "api"], "clave API", K::ApiKey),
    e(&["chiave~", "api"], "chiave API", K::ApiKey),
    e(&["chave~", "api"], "chave de API", K::ApiKey),
    e(&["chave~", "de", "api"], "chave de API", K::ApiKey),
    e(&["api", "schlussel"], "API-Schlüssel", K::ApiKey),
    e(&["*apischlussel"], "API-Schlüssel", K::ApiKey),
    e(&["api", "sleutel~"], "API-sleutel", K::ApiKey),
    e(&["*apisleutel"], "API-sleutel", K::ApiKey),
    e(&["api", "ключ*"], "API-ключ", K::ApiKey),
    e(&["ключ*", "api"], "API-ключ", K::ApiKey),
    e(&["api", "キー"], "APIキー", K::ApiKey),
    e(&["api", "密钥"], "API密钥", K::ApiKey),
    e(&["api", "密鑰"], "API密鑰", K::ApiKey),
    e(&["api", "키"], "API 키", K::ApiKey),
    // --- tokens ----------------------------------------------------------------------
    guarded(&["token"], "token", K::Token, Guard::BareToken),
    e(&["access", "token~"], "access token", K::Token),
    e(&["refresh", "token~"], "refresh token", K::Token),
    e(&["bearer", "token~"], "bearer token", K::Token),
    e(&["auth", "token~"], "auth token", K::Token),
    e(&["authentication", "token~"], "authentication token", K::Token),
    e(&["authorization", "token~"], "authorization token", K::Token),
    e(&["session", "token~"], "session token", K::Token),
    e(&["personal", "access", "token~"], "personal access token", K::Token),
    e(&["id", "token~"], "id token", K::Token),
    e(&["api", "token~"], "api token", K::Token),
    e(&["*accesstoken"], "access token", K::Token),
    e(&["*refreshtoken"], "refresh token", K::Token),
    e(&["*authtoken"], "auth token", K::Token),
    e(&["*bearertoken"], "bearer token", K::Token),
    e(&["*sessiontoken"], "session token", K::Token),
    e(&["*apitoken"], "api token", K::Token),
    e(&["jwt~"], "jwt", K::Token),
    guarded(&["pat"], "personal access token", K::Token, Guard::Abbreviation),
    e(&["session", "cookie~"], "session cookie", K::Token),
    e(&["auth", "cookie~"], "auth cookie", K::Token),
    e(&["authorization", "code~"], "authorization code", K::Token),
    e(&["*zugangstoken"], "Zugangstoken", K::Token),
    e(&["*zugriffstoken"], "Zugriffstoken", K::Token),
    e(&["jeton~", "d", "acces"], "jeton d'accès", K::Token),
    e(&["jeton~", "d", "authentification"], "jeton d'authentification", K::Token),
    e(&["jeton~", "api"], "jeton API", K::Token),
    e(&["токен*", "доступа"], "токен доступа", K::Token),
    e(&["*令牌"], "令牌", K::Token).unless(&["令牌数", "令牌數", "令牌桶"]),
    e(&["*アクセストークン"], "アクセストークン", K::Token),
    e(&["*認証トークン"], "認証トークン", K::Token),
    // --- other secrets and credentials -----------------------------------------------
    e(&["*secret"], "secret", K::Secret).unless(&[
        "secretar",
        "secretion",
        "secreted",
        "secretly",
        "secretive",
    ]),
    e(&["client", "secret~"], "client secret", K::Secret),
    e(&["app", "secret~"], "app secret", K::Secret),
    e(&["consumer", "secret~"], "consumer secret", K::Secret),
    e(&["webhook", "secret~"], "webhook secret", K::Secret),
    e(&["shared", "secret~"], "shared secret", K::Secret),
    e(&["secret", "key~"], "secret key", K::Secret),
    e(&["encryption", "key~"], "encryption key", K::Secret),
    e(&["decryption", "key~"], "decryption key", K::Secret),
    e(&["master", "key~"], "master key", K::Secret),
    e(&["license", "key~"], "license key", K::Secret),
    e(&["licence", "key~"], "license key", K::Secret),
    e(&["*licensekey"], "license key", K::Secret),
    e(&["product", "key~"], "product key", K::Secret),
    e(&["credential~"], "credentials", K::Secret),
    e(&["security", "question~"], "security question", K::Secret),
    e(&["security", "answer~"], "security answer", K::Secret),
    e(&["cle~", "secrete~"], "clé secrète", K::Secret),
    e(&["clave~", "secreta~"], "clave secreta", K::Secret),
    e(&["chiave~", "segreta"], "chiave segreta", K::Secret),
    e(&["chave~", "secreta~"], "chave secreta", K::Secret),
    e(&["geheimer", "schlussel"], "geheimer Schlüssel", K::Secret),
    e(&["geheimen", "schlussel"], "geheimer Schlüssel", K::Secret),
    e(&["geheime", "sleutel~"], "geheime sleutel", K::Secret),
    e(&["секретн*", "ключ*"], "секретный ключ", K::Secret),
    e(&["*密钥"], "密钥", K::Secret),
    e(&["*密鑰"], "密鑰", K::Secret),
    e(&["*シークレット"], "シークレット", K::Secret),
    // --- private keys ----------------------------------------------------------------
    e(&["private", "key~"], "private key", K::PrivateKey),
    e(&["*privatekey"], "private key", K::PrivateKey),
    e(&["priv", "key~"], "private key", K::PrivateKey),
    e(&["*privkey"], "private key", K::PrivateKey),
    e(&["signing", "key~"], "signing key", K::PrivateKey),
    e(&["*signingkey"], "signing key", K::PrivateKey),
    e(&["cle~", "privee~"], "clé privée", K::PrivateKey),
    e(&["clave~", "privada~"], "clave privada", K::PrivateKey),
    e(&["chiave~", "privata"], "chiave privata", K::PrivateKey),
    e(&["chave~", "privada~"], "chave privada", K::PrivateKey),
    e(&["privater", "schlussel"], "privater Schlüssel", K::PrivateKey),
    e(&["privaten", "schlussel"], "privater Schlüssel", K::PrivateKey),
    e(&["prive", "sleutel~"], "privésleutel", K::PrivateKey),
    e(&["*privesleutel"], "privésleutel", K::PrivateKey),
    e(&["приватн*", "ключ*"], "приватный ключ", K::PrivateKey),
    e(&["закрыт*", "ключ*"], "закрытый ключ", K::PrivateKey),
    e(&["*私钥"], "私钥", K::PrivateKey),
    e(&["*私鑰"], "私鑰", K::PrivateKey),
    e(&["*秘密鍵"], "秘密鍵", K::PrivateKey),
    e(&["개인", "키"], "개인 키", K::PrivateKey),
    e(&["*개인키"], "개인 키", K::PrivateKey),
    // --- wallet seed phrases -----------------------------------------------------------
    e(&["seed", "phrase~"], "seed phrase", K::SeedPhrase),
    e(&["seed", "word~"], "seed words", K::SeedPhrase),
    e(&["wallet", "seed~"], "wallet seed", K::SeedPhrase),
    e(&["recovery", "phrase~"], "recovery phrase", K::SeedPhrase),
    e(&["secret", "recovery", "phrase~"], "secret recovery phrase", K::SeedPhrase),
    e(&["mnemonic~"], "mnemonic phrase", K::SeedPhrase),
    e(&["mnemonic", "phrase~"], "mnemonic phrase", K::SeedPhrase),
    e(&["*seedphrase"], "seed phrase", K::SeedPhrase),
    e(&["bip39"], "seed phrase", K::SeedPhrase),
    e(&["*助记词"], "助记词", K::SeedPhrase),
    e(&["*助記詞"], "助記詞", K::SeedPhrase),
    // --- recovery codes ----------------------------------------------------------------
    e(&["recovery", "code~"], "recovery code", K::RecoveryCode),
    e(&["backup", "code~"], "backup code", K::RecoveryCode),
    e(&["recovery", "key~"], "recovery key", K::RecoveryCode),
    e(&["scratch", "code~"], "scratch code", K::RecoveryCode),
    e(&["*recoverycode"], "recovery code", K::RecoveryCode),
    e(&["*backupcode"], "backup code", K::RecoveryCode),
    e(&["*wiederherstellungscode"], "Wiederherstellungscode", K::RecoveryCode),
    e(&["code~", "de", "recuperation"], "code de récupération", K::RecoveryCode),
    e(&["codigo~", "de", "recuperacion"], "código de recuperación", K::RecoveryCode),
    e(&["codice", "di", "recupero"], "codice di recupero", K::RecoveryCode),
    e(&["codigo~", "de", "recuperacao"], "código de recuperação", K::RecoveryCode),
    e(&["*herstelcode"], "herstelcode", K::RecoveryCode),
    e(&["*恢复码"], "恢复码", K::RecoveryCode),
    e(&["*备用码"], "备用码", K::RecoveryCode),
    e(&["*リカバリーコード"], "リカバリーコード", K::RecoveryCode),
    e(&["*バックアップコード"], "バックアップコード", K::RecoveryCode),
    // --- one-time codes ----------------------------------------------------------------
    e(&["otp~"], "otp", K::OneTimeCode),
    e(&["totp"], "totp", K::OneTimeCode),
    e(&["hotp"], "hotp", K::OneTimeCode),
    e(&["*otpcode"], "otp", K::OneTimeCode),
    e(&["*onetime"], "one-time code", K::OneTimeCode),
    e(&["one", "time", "code~"], "one-time code", K::OneTimeCode),
    e(&["one", "time", "password~"], "one-time password", K::OneTimeCode),
    e(&["one", "time", "passcode~"], "one-time passcode", K::OneTimeCode),
    e(&["one", "time", "pin~"], "one-time pin", K::OneTimeCode),
    e(&["one", "time", "token~"], "one-time token", K::OneTimeCode),
    e(&["2fa", "code~"], "2fa code", K::OneTimeCode),
    e(&["mfa", "code~"], "mfa code", K::OneTimeCode),
    e(&["verification", "code~"], "verification code", K::OneTimeCode),
    e(&["*verificationcode"], "verification code", K::OneTimeCode),
    e(&["verify", "code~"], "verification code", K::OneTimeCode),
    e(&["sms", "code~"], "sms code", K::OneTimeCode),
    e(&["security", "code~"], "security code", K::OneTimeCode),
    e(&["authentication", "code~"], "authentication code", K::OneTimeCode),
    e(&["auth", "code~"], "auth code", K::OneTimeCode),
    e(&["authenticator", "code~"], "authenticator code", K::OneTimeCode),
    e(&["login", "code~"], "login code", K::OneTimeCode),
    e(&["reset", "code~"], "reset code", K::OneTimeCode),
    e(&["*bestatigungscode"], "Bestätigungscode", K::OneTimeCode),
    e(&["*verifizierungscode"], "Verifizierungscode", K::OneTimeCode),
    e(&["*sicherheitscode"], "Sicherheitscode", K::OneTimeCode),
    e(&["code~", "de", "verification"], "code de vérification", K::OneTimeCode),
    e(&["code~", "de", "securite"], "code de sécurité", K::OneTimeCode),
    e(&["codigo~", "de", "verificacion"], "código de verificación", K::OneTimeCode),
    e(&["codigo~", "de", "seguridad"], "código de seguridad", K::OneTimeCode),
    e(&["codice", "di", "verifica"], "codice di verifica", K::OneTimeCode),
    e(&["codice", "di", "sicurezza"], "codice di sicurezza", K::OneTimeCode),
    e(&["codigo~", "de", "verificacao"], "código de verificação", K::OneTimeCode),
    e(&["codigo~", "de", "seguranca"], "código de segurança", K::OneTimeCode),
    e(&["*verificatiecode"], "verificatiecode", K::OneTimeCode),
    e(&["код", "подтвержд*"], "код подтверждения", K::OneTimeCode),
    e(&["одноразов*"], "одноразовый код", K::OneTimeCode),
    e(&["*验证码"], "验证码", K::OneTimeCode),
    e(&["*驗證碼"], "驗證碼", K::OneTimeCode),
    e(&["*动态码"], "动态码", K::OneTimeCode),
    e(&["*認証コード"], "認証コード", K::OneTimeCode),
    e(&["*確認コード"], "確認コード", K::OneTimeCode),
    e(&["*ワンタイム"], "ワンタイム", K::OneTimeCode),
    e(&["*인증번호"], "인증번호", K::OneTimeCode),
    // --- payment cards -----------------------------------------------------------------
    e(&["credit", "card"], "credit card", K::PaymentCard),
    e(&["debit", "card"], "debit card", K::PaymentCard),
    e(&["*creditcard"], "credit card", K::PaymentCard).unless(&["creditcards"]),
    e(&["*debitcard"], "debit card", K::PaymentCard).unless(&["debitcards"]),
    e(&["card", "number~"], "card number", K::PaymentCard),
    e(&["card", "no"], "card number", K::PaymentCard),
    e(&["card", "num"], "card number", K::PaymentCard),
    e(&["*cardnumber"], "card number", K::PaymentCard),
    e(&["*cardnum"], "card number", K::PaymentCard),
    e(&["cc", "number~"], "card number", K::PaymentCard),
    e(&["cc", "num"], "card number", K::PaymentCard),
    e(&["ccnum*"], "card number", K::PaymentCard),
    e(&["card", "expiry"], "card expiry", K::PaymentCard),
    e(&["card", "expiration"], "card expiry", K::PaymentCard),
    e(&["card", "exp"], "card expiry", K::PaymentCard),
    e(&["cvv~"], "cvv", K::PaymentCard),
    e(&["cvv2"], "cvv", K::PaymentCard),
    e(&["cvc~"], "cvc", K::PaymentCard),
    e(&["cvc2"], "cvc", K::PaymentCard),
    e(&["csc"], "csc", K::PaymentCard),
    e(&["card", "verification"], "card verification code", K::PaymentCard),
    e(&["card", "security", "code~"], "card security code", K::PaymentCard),
    e(&["card", "code~"], "card code", K::PaymentCard),
    e(&["kreditkarte"], "Kreditkarte", K::PaymentCard),
    e(&["*kartennummer"], "Kartennummer", K::PaymentCard),
    e(&["*kartenprufnummer"], "Kartenprüfnummer", K::PaymentCard),
    e(&["carte", "bancaire"], "carte bancaire", K::PaymentCard),
    e(&["carte", "de", "credit"], "carte de crédit", K::PaymentCard),
    e(&["numero~", "de", "carte"], "numéro de carte", K::PaymentCard),
    e(&["cryptogramme*"], "cryptogramme", K::PaymentCard),
    e(&["tarjeta", "de", "credito"], "tarjeta de crédito", K::PaymentCard),
    e(&["tarjeta", "de", "debito"], "tarjeta de débito", K::PaymentCard),
    e(&["numero~", "de", "tarjeta"], "número de tarjeta", K::PaymentCard),
    e(&["carta", "di", "credito"], "carta di credito", K::PaymentCard),
    e(&["numero", "della", "carta"], "numero della carta", K::PaymentCard),
    e(&["numero", "di", "carta"], "numero della carta", K::PaymentCard),
    e(&["cartao", "de", "credito"], "cartão de crédito", K::PaymentCard),
    e(&["numero", "do", "cartao"], "número do cartão", K::PaymentCard),
    e(&["*kaartnummer"], "kaartnummer", K::PaymentCard),
    e(&["номер", "карт*"], "номер карты", K::PaymentCard),
    e(&["*信用卡"], "信用卡", K::PaymentCard),
    e(&["*卡号"], "卡号", K::PaymentCard),
    e(&["*卡號"], "卡號", K::PaymentCard),
    e(&["*安全码"], "安全码", K::PaymentCard),
    e(&["*クレジットカード"], "クレジットカード", K::PaymentCard),
    e(&["*カード番号"], "カード番号", K::PaymentCard),
    e(&["*セキュリティコード"], "セキュリティコード", K::PaymentCard),
    e(&["*신용카드"], "신용카드", K::PaymentCard),
    e(&["*카드번호"], "카드번호", K::PaymentCard),
    // --- bank accounts -----------------------------------------------------------------
    e(&["iban~"], "iban", K::BankAccount),
    e(&["bank", "account"], "bank account", K::BankAccount),
    e(&["*bankaccount"], "bank account", K::BankAccount).unless(&["bankaccounts"]),
    e(&["bank", "details"], "bank details", K::BankAccount),
    e(&["routing", "number~"], "routing number", K::BankAccount),
    e(&["routing", "no"], "routing number", K::BankAccount),
    e(&["*routingnumber"], "routing number", K::BankAccount),
    e(&["aba", "number"], "routing number", K::BankAccount),
    e(&["sort", "code"], "sort code", K::BankAccount),
    e(&["*sortcode"], "sort code", K::BankAccount),
    e(&["*kontonummer"], "Kontonummer", K::BankAccount),
    e(&["*bankverbindung"], "Bankverbindung", K::BankAccount),
    e(&["*rekeningnummer"], "rekeningnummer", K::BankAccount),
    e(&["cuenta", "bancaria"], "cuenta bancaria", K::BankAccount),
    e(&["clabe"], "CLABE", K::BankAccount),
    e(&["conto", "corrente"], "conto corrente", K::BankAccount),
    e(&["conta", "bancaria"], "conta bancária", K::BankAccount),
    e(&["compte", "bancaire"], "compte bancaire", K::BankAccount),
    e(&["*口座番号"], "口座番号", K::BankAccount),
    e(&["*银行账号"], "银行账号", K::BankAccount),
    e(&["*银行账户"], "银行账户", K::BankAccount),
    e(&["*銀行帳號"], "銀行帳號", K::BankAccount),
    e(&["*계좌번호"], "계좌번호", K::BankAccount),
    // --- national identification numbers ------------------------------------------------
    e(&["ssn~"], "ssn", K::NationalId),
    e(&["social", "security", "number~"], "social security number", K::NationalId),
    e(&["social", "security", "no"], "social security number", K::NationalId),
    e(&["social", "insurance", "number~"], "social insurance number", K::NationalId),
    e(&["national", "insurance", "number~"], "national insurance number", K::NationalId),
    e(&["national", "insurance", "no"], "national insurance number", K::NationalId),
    e(&["ni", "number~"], "national insurance number", K::NationalId),
    e(&["national", "id~"], "national id", K::NationalId),
    e(&["national", "identification", "number~"], "national id", K::NationalId),
    e(&["national", "identity", "number~"], "national id", K::NationalId),
    e(&["tax", "id~"], "tax id", K::NationalId),
    e(&["taxpayer", "id~"], "tax id", K::NationalId),
    e(&["tax", "identification", "number~"], "tax id", K::NationalId),
    e(&["taxpayer", "identification", "number~"], "tax id", K::NationalId),
    e(&["tax", "file", "number~"], "tax file number", K::NationalId),
    e(&["itin"], "itin", K::NationalId),
    e(&["tfn"], "tax file number", K::NationalId),
    e(&["nif"], "NIF", K::NationalId),
    e(&["cpf"], "CPF", K::NationalId),
    e(&["dni"], "DNI", K::NationalId),
    e(&["curp"], "CURP", K::NationalId),
    e(&["pesel"], "PESEL", K::NationalId),
    e(&["aadhaar"], "Aadhaar", K::NationalId),
    e(&["aadhar"], "Aadhaar", K::NationalId),
    e(&["bsn"], "BSN", K::NationalId),
    e(&["*burgerservicenummer"], "burgerservicenummer", K::NationalId),
    e(&["*personnummer"], "personnummer", K::NationalId),
    e(&["codice", "fiscale"], "codice fiscale", K::NationalId),
    e(&["*sozialversicherungsnummer"], "Sozialversicherungsnummer", K::NationalId),
    e(&["steuer", "id"], "Steuer-ID", K::NationalId),
    e(&["*steuerid"], "Steuer-ID", K::NationalId),
    e(&["securite", "sociale"], "sécurité sociale", K::NationalId),
    e(&["seguro", "social"], "seguro social", K::NationalId),
    e(&["seguridad", "social"], "seguridad social", K::NationalId),
    e(&["снилс"], "СНИЛС", K::NationalId),
    e(&["инн"], "ИНН", K::NationalId),
    e(&["*身份证"], "身份证", K::NationalId),
    e(&["*身份證"], "身份證", K::NationalId),
    e(&["*社会保障号"], "社会保障号", K::NationalId),
    e(&["*マイナンバー"], "マイナンバー", K::NationalId),
    e(&["*주민등록번호"], "주민등록번호", K::NationalId),
];

/// The vocabulary grouped by the first byte of each entry's first pattern, built at
/// compile time, so a word is tried only against the entries that can start with it
/// (and the `*word` entries, grouped under `*`). Each group keeps table order.
pub(super) struct Index {
    /// Group `b` is `order[start[b]..start[b + 1]]`.
    start: [u16; 257],
    /// Entry numbers in group order.
    pub(super) order: [u16; VOCABULARY.len()],
    /// [`Entry::needs`] of each entry in `order`, folded to 64 bits and kept contiguous,
    /// so that ruling out an entry touches one cache line for eight entries.
    pub(super) needs: [u64; VOCABULARY.len()],
}

impl Index {
    pub(super) fn bucket(&self, first: u8) -> Range<usize> {
        let b = usize::from(first);
        usize::from(self.start[b])..usize::from(self.start[b + 1])
    }
}

pub(super) const INDEX: Index = {
    const fn key(entry: &Entry) -> usize {
        // An entry without words, or with an empty first pattern, fails to compile here.
        entry.words[0].as_bytes()[0] as usize
    }
    assert!(VOCABULARY.len() < u16::MAX as usize);
    let mut start = [0u16; 257];
    let mut i = 0;
    while i < VOCABULARY.len() {
        start[key(&VOCABULARY[i]) + 1] += 1;
        i += 1;
    }
    let mut b = 0;
    while b < 256 {
        start[b + 1] += start[b];
        b += 1;
    }
    let mut next = start;
    let mut order = [0u16; VOCABULARY.len()];
    let mut needs = [0u64; VOCABULARY.len()];
    let mut i = 0;
    while i < VOCABULARY.len() {
        let k = key(&VOCABULARY[i]);
        let at = next[k] as usize;
        order[at] = i as u16;
        needs[at] = VOCABULARY[i].needs.fold();
        next[k] += 1;
        i += 1;
    }
    Index {
        start,
        order,
        needs,
    }
};

/// Words right after a match that make the text talk *about* the secret rather than ask
/// for it: "password length", "API key name", "credit card type", "token budget".
#[rustfmt::skip]
static ABOUT_WORDS: &[&str] = &[
    "age", "budget", "budgets", "complexity", "cost", "costs", "count", "counts",
    "description", "expiration", "expires", "expiry", "file", "format", "generator",
    "label", "len", "length", "lifetime", "limit", "limits", "location", "manager", "max",
    "maximum", "min", "minimum", "name", "names", "path", "pattern", "per", "permission",
    "permissions", "policies", "policy", "prefix", "price", "pricing", "protected",
    "provider", "quota", "rate", "regex", "requirement", "requirements", "reset",
    "rotation", "rule", "rules", "scope", "scopes", "size", "store", "strength", "ttl",
    "type", "types", "usage", "vault", "window",
];

/// Neighbours of a bare `token` that make it a language-model or cryptocurrency unit, or
/// a pagination cursor, rather than a credential: `max_tokens`, "input token",
/// "token symbol", "next page token".
#[rustfmt::skip]
static TOKEN_UNIT_WORDS: &[&str] = &[
    "address", "amount", "balance", "cached", "completion", "context", "continuation",
    "contract", "design", "gpt", "id", "input", "llm", "max", "maximum", "min", "minimum",
    "model", "next", "num", "number", "output", "page", "pagination", "prompt", "reasoning",
    "symbol", "thinking", "ticker", "total",
];

impl Entry {
    pub(super) fn matches_at(&self, words: &Words, start: usize) -> bool {
        let Some(end) = start.checked_add(self.words.len()) else {
            return false;
        };
        if end > words.list.len() {
            return false;
        }
        for (offset, pattern) in self.words.iter().enumerate() {
            let word = &words.list[start + offset];
            if offset > 0 && !word.joined {
                return false;
            }
            if !word_matches(pattern, word, words.text(word)) {
                return false;
            }
        }
        let first = words.text(&words.list[start]);
        if self.unless.iter().any(|except| first.contains(except)) {
            return false;
        }
        let next = words.list.get(end).filter(|w| w.joined);
        if next.is_some_and(|w| ABOUT_WORDS.contains(&words.text(w))) {
            return false;
        }
        match self.guard {
            Guard::None => true,
            Guard::Abbreviation => {
                let word = &words.list[start];
                word.caps || word.caps_plural || (words.identifier && end == words.list.len())
            }
            Guard::BareToken => {
                let prev = start
                    .checked_sub(1)
                    .filter(|_| words.list[start].joined)
                    .map(|i| &words.list[i]);
                let is_unit =
                    |w: Option<&Word>| w.is_some_and(|w| TOKEN_UNIT_WORDS.contains(&words.text(w)));
                !is_unit(prev) && !is_unit(next)
            }
        }
    }
}

/// Does one folded word match one pattern (see [`Entry`])? A word in capitals with a
/// plural `s` (`PINs`, `SSNs`) also matches as its singular.
fn word_matches(pattern: &str, word: &Word, text: &str) -> bool {
    // Cheap rejections first: this runs for every word against every entry.
    let matches = match pattern.strip_prefix('*') {
        Some(needle) => {
            if !needle.bytes().all(|b| word.bytes.contains(b)) {
                return false;
            }
            |text: &str, needle: &str| text.contains(needle)
        }
        None => {
            if pattern.as_bytes().first() != text.as_bytes().first() {
                return false;
            }
            |text: &str, pattern: &str| {
                if let Some(stem) = pattern.strip_suffix('*') {
                    text.starts_with(stem)
                } else if let Some(stem) = pattern.strip_suffix('~') {
                    text.strip_prefix(stem)
                        .is_some_and(|rest| rest.is_empty() || rest == "s" || rest == "es")
                } else {
                    text == pattern
                }
            }
        }
    };
    let pattern = pattern.trim_start_matches('*');
    matches(text, pattern)
        || (word.caps_plural && text.strip_suffix('s').is_some_and(|t| matches(t, pattern)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::find_secret;

    // covers: F5
    #[test]
    fn secrets_are_found_with_their_kind() {
        let cases: &[(&str, SecretKind)] = &[
            // passwords, every casing convention
            ("password", K::Password),
            ("Password", K::Password),
            ("PASSWORD", K::Password),
            ("newPassword", K::Password),
            ("new_password", K::Password),
            ("NEW-PASSWORD", K::Password),
            ("userpassword", K::Password),
            ("confirm_passwords", K::Password),
            ("Enter your password", K::Password),
            ("pass word", K::Password),
            ("passwd", K::Password),
            ("db_passwd", K::Password),
            ("pwd", K::Password),
            ("user_pwd", K::Password),
            ("pw", K::Password),
            ("passphrase", K::Password),
            ("Key passphrase", K::Password),
            ("pass_phrase", K::Password),
            ("passcode", K::Password),
            ("Device passcode", K::Password),
            ("Wi-Fi PSK", K::Password),
            ("pre-shared key", K::Password),
            ("Door access code", K::Password),
            ("Memorable word", K::Password),
            ("ＰＡＳＳＷＯＲＤ", K::Password),
            ("Passwort", K::Password),
            ("Neues Kennwort", K::Password),
            ("Passwörter", K::Password),
            ("Mot de passe", K::Password),
            ("Votre mot de passe", K::Password),
            ("mdp", K::Password),
            ("Contraseña", K::Password),
            ("CONTRASEÑA", K::Password),
            ("contrasena", K::Password),
            ("clave de acceso", K::Password),
            ("Senha", K::Password),
            ("Digite sua senha", K::Password),
            ("Wachtwoord", K::Password),
            ("Salasana", K::Password),
            ("Lösenord", K::Password),
            ("Passord", K::Password),
            ("Hasło", K::Password),
            ("Podaj hasło", K::Password),
            ("Heslo", K::Password),
            ("Jelszó", K::Password),
            ("Şifre", K::Password),
            ("Kata sandi", K::Password),
            ("Mật khẩu", K::Password),
            ("Κωδικός πρόσβασης", K::Password),
            ("Пароль", K::Password),
            ("Введите пароль", K::Password),
            ("密码", K::Password),
            ("请输入密码", K::Password),
            ("請輸入密碼", K::Password),
            ("口令", K::Password),
            ("パスワード", K::Password),
            ("パスワードを入力してください", K::Password),
            ("비밀번호", K::Password),
            ("סיסמה", K::Password),
            ("كلمة المرور", K::Password),
            ("पासवर्ड", K::Password),
            ("รหัสผ่าน", K::Password),
            // PINs
            ("pin", K::Pin),
            ("Pin", K::Pin),
            ("PIN", K::Pin),
            ("user_pin", K::Pin),
            ("cardPin", K::Pin),
            ("Enter your PIN", K::Pin),
            ("Your PINs", K::Pin),
            ("PIN码", K::Pin),
            ("pin code", K::Pin),
            ("pinCode", K::Pin),
            ("pincode", K::Pin),
            ("PIN number", K::Pin),
            ("enter your pin to continue", K::Pin),
            ("The 4-digit pin", K::Pin),
            ("sim pin", K::Pin),
            ("Personal identification number", K::Pin),
            ("Geheimzahl", K::Pin),
            ("Code PIN", K::Pin),
            ("code pin", K::Pin),
            ("ПИН-код", K::Pin),
            ("暗証番号", K::Pin),
            // API keys
            ("apiKey", K::ApiKey),
            ("api_key", K::ApiKey),
            ("API-KEY", K::ApiKey),
            ("ApiKey", K::ApiKey),
            ("APIKey", K::ApiKey),
            ("apikey", K::ApiKey),
            ("APIKEY", K::ApiKey),
            ("x_api_key", K::ApiKey),
            ("x-api-key", K::ApiKey),
            ("openaiApiKey", K::ApiKey),
            ("Your OpenAI API key", K::ApiKey),
            ("API keys", K::ApiKey),
            ("AWS access key", K::ApiKey),
            ("awsAccessKeyId", K::ApiKey),
            ("Subscription key", K::ApiKey),
            ("Clé API", K::ApiKey),
            ("Votre clé d'API", K::ApiKey),
            ("Clave API", K::ApiKey),
            ("chiave API", K::ApiKey),
            ("Chave de API", K::ApiKey),
            ("API-Schlüssel", K::ApiKey),
            ("API-sleutel", K::ApiKey),
            ("API-ключ", K::ApiKey),
            ("APIキー", K::ApiKey),
            ("请输入API密钥", K::ApiKey),
            ("API 키", K::ApiKey),
            // tokens
            ("token", K::Token),
            ("Token", K::Token),
            ("Enter your token", K::Token),
            ("githubToken", K::Token),
            ("GITHUB_TOKEN", K::Token),
            ("csrf_token", K::Token),
            ("accessToken", K::Token),
            ("access_token", K::Token),
            ("accesstoken", K::Token),
            ("refresh_token", K::Token),
            ("Refresh tokens", K::Token),
            ("Bearer token", K::Token),
            ("authToken", K::Token),
            ("OAuthToken", K::Token),
            ("session token", K::Token),
            ("id_token", K::Token),
            ("Enter your GitHub personal access token", K::Token),
            ("PAT", K::Token),
            ("github_pat", K::Token),
            ("Your GitLab PAT", K::Token),
            ("jwt", K::Token),
            ("Session cookie", K::Token),
            ("OAuth authorization code", K::Token),
            ("API token", K::Token),
            ("Zugangstoken", K::Token),
            ("Jeton d'accès", K::Token),
            ("Token de acceso", K::Token),
            ("Токен доступа", K::Token),
            ("访问令牌", K::Token),
            ("アクセストークン", K::Token),
            // other secrets
            ("secret", K::Secret),
            ("Secrets", K::Secret),
            ("clientSecret", K::Secret),
            ("client_secret", K::Secret),
            ("webhookSecret", K::Secret),
            ("totpsecret", K::Secret),
            ("Shared secret", K::Secret),
            ("secret key", K::Secret),
            ("secretKey", K::Secret),
            ("Stripe secret key", K::Secret),
            ("Encryption key", K::Secret),
            ("master_key", K::Secret),
            ("License key", K::Secret),
            ("licenseKey", K::Secret),
            ("Windows product key", K::Secret),
            ("credentials", K::Secret),
            ("Login credentials", K::Secret),
            ("Security question", K::Secret),
            ("security_answer", K::Secret),
            ("Clé secrète", K::Secret),
            ("Clave secreta", K::Secret),
            ("geheimer Schlüssel", K::Secret),
            ("Секретный ключ", K::Secret),
            ("密钥", K::Secret),
            // private keys
            ("private key", K::PrivateKey),
            ("privateKey", K::PrivateKey),
            ("PRIVATE_KEY", K::PrivateKey),
            ("ssh_private_key", K::PrivateKey),
            ("privkey", K::PrivateKey),
            ("Signing key", K::PrivateKey),
            ("Clé privée", K::PrivateKey),
            ("Clave privada", K::PrivateKey),
            ("Chave privada", K::PrivateKey),
            ("privater Schlüssel", K::PrivateKey),
            ("Закрытый ключ", K::PrivateKey),
            ("私钥", K::PrivateKey),
            ("秘密鍵", K::PrivateKey),
            ("개인 키", K::PrivateKey),
            // seed phrases
            ("seed phrase", K::SeedPhrase),
            ("seedPhrase", K::SeedPhrase),
            ("Your 12 seed words", K::SeedPhrase),
            ("Wallet seed", K::SeedPhrase),
            ("Secret recovery phrase", K::SeedPhrase),
            ("mnemonic", K::SeedPhrase),
            ("Mnemonic phrase", K::SeedPhrase),
            ("助记词", K::SeedPhrase),
            // recovery codes
            ("recovery code", K::RecoveryCode),
            ("recoveryCodes", K::RecoveryCode),
            ("backup_codes", K::RecoveryCode),
            ("BitLocker recovery key", K::RecoveryCode),
            ("Wiederherstellungscode", K::RecoveryCode),
            ("Code de récupération", K::RecoveryCode),
            ("恢复码", K::RecoveryCode),
            // one-time codes
            ("otp", K::OneTimeCode),
            ("OTP", K::OneTimeCode),
            ("otpCode", K::OneTimeCode),
            ("totp", K::OneTimeCode),
            ("one-time code", K::OneTimeCode),
            ("One time password", K::OneTimeCode),
            ("oneTimePassword", K::OneTimeCode),
            ("2FA code", K::OneTimeCode),
            ("mfa_code", K::OneTimeCode),
            ("Verification code", K::OneTimeCode),
            ("verificationCode", K::OneTimeCode),
            ("The SMS code we sent you", K::OneTimeCode),
            ("Security code", K::OneTimeCode),
            ("Authenticator code", K::OneTimeCode),
            ("Password reset code", K::OneTimeCode),
            ("Bestätigungscode", K::OneTimeCode),
            ("Code de vérification", K::OneTimeCode),
            ("Código de verificación", K::OneTimeCode),
            ("Код подтверждения", K::OneTimeCode),
            ("验证码", K::OneTimeCode),
            ("認証コード", K::OneTimeCode),
            ("인증번호", K::OneTimeCode),
            // payment cards
            ("credit card", K::PaymentCard),
            ("Credit card number", K::PaymentCard),
            ("creditCardNumber", K::PaymentCard),
            ("creditcard", K::PaymentCard),
            ("Debit card", K::PaymentCard),
            ("card number", K::PaymentCard),
            ("cardNumber", K::PaymentCard),
            ("card_no", K::PaymentCard),
            ("cc_number", K::PaymentCard),
            ("ccnum", K::PaymentCard),
            ("Card expiry", K::PaymentCard),
            ("cardExpiration", K::PaymentCard),
            ("cvv", K::PaymentCard),
            ("CVV", K::PaymentCard),
            ("CVV2", K::PaymentCard),
            ("cvc", K::PaymentCard),
            ("CSC", K::PaymentCard),
            ("Card security code", K::PaymentCard),
            ("Gift card code", K::PaymentCard),
            ("Kreditkarte", K::PaymentCard),
            ("Kartennummer", K::PaymentCard),
            ("Numéro de carte", K::PaymentCard),
            ("Carte bancaire", K::PaymentCard),
            ("Cryptogramme visuel", K::PaymentCard),
            ("Número de tarjeta", K::PaymentCard),
            ("Tarjeta de crédito", K::PaymentCard),
            ("Carta di credito", K::PaymentCard),
            ("Número do cartão", K::PaymentCard),
            ("Номер карты", K::PaymentCard),
            ("信用卡号", K::PaymentCard),
            ("クレジットカード", K::PaymentCard),
            ("카드번호", K::PaymentCard),
            // bank accounts
            ("iban", K::BankAccount),
            ("IBAN", K::BankAccount),
            ("Your IBAN", K::BankAccount),
            ("bank account", K::BankAccount),
            ("bankAccountNumber", K::BankAccount),
            ("bank_account", K::BankAccount),
            ("Routing number", K::BankAccount),
            ("routingNumber", K::BankAccount),
            ("Sort code", K::BankAccount),
            ("Bank details", K::BankAccount),
            ("Kontonummer", K::BankAccount),
            ("Cuenta bancaria", K::BankAccount),
            ("CLABE", K::BankAccount),
            ("口座番号", K::BankAccount),
            // national identification numbers
            ("ssn", K::NationalId),
            ("SSN", K::NationalId),
            ("Your SSN", K::NationalId),
            ("Social security number", K::NationalId),
            ("socialSecurityNumber", K::NationalId),
            ("National insurance number", K::NationalId),
            ("NI number", K::NationalId),
            ("Social insurance number", K::NationalId),
            ("tax id", K::NationalId),
            ("taxId", K::NationalId),
            ("Taxpayer identification number", K::NationalId),
            ("National ID", K::NationalId),
            ("ITIN", K::NationalId),
            ("CPF", K::NationalId),
            ("DNI", K::NationalId),
            ("Aadhaar", K::NationalId),
            ("BSN", K::NationalId),
            ("Burgerservicenummer", K::NationalId),
            ("Personnummer", K::NationalId),
            ("Codice fiscale", K::NationalId),
            ("Sozialversicherungsnummer", K::NationalId),
            ("Steuer-ID", K::NationalId),
            ("Numéro de sécurité sociale", K::NationalId),
            ("СНИЛС", K::NationalId),
            ("身份证号", K::NationalId),
            ("マイナンバー", K::NationalId),
            ("주민등록번호", K::NationalId),
        ];
        let mut wrong = Vec::new();
        for &(text, kind) in cases {
            let hit = find_secret(text);
            if hit.map(|h| h.kind) != Some(kind) {
                wrong.push(format!("{text:?}: expected {kind:?}, got {hit:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    // covers: F5
    #[test]
    fn ordinary_fields_are_not_secrets() {
        let cases: &[&str] = &[
            "",
            "name",
            "Full name",
            "first_name",
            "email",
            "Email address",
            "e-mail",
            "username",
            "user name",
            "userName",
            "login",
            "Login name",
            "display name",
            "displayName",
            "address",
            "Shipping address",
            "phone",
            "Phone number",
            "date of birth",
            "Passport number",
            "Account number",
            "Customer account number",
            "Expiry date",
            "Token budget",
            "token budget",
            "max_tokens",
            "maxTokens",
            "MAX_TOKENS",
            "Max tokens",
            "max_token_count",
            "Token count",
            "tokenCount",
            "Tokens per minute",
            "tokens",
            "Token limit",
            "Output token limit",
            "Thinking token budget",
            "input tokens",
            "Token symbol",
            "next_page_token",
            "tokenizer",
            "Tokenize the input?",
            "Token name",
            "Access token expiry",
            "keyboard",
            "Keyboard layout",
            "keyword",
            "keywords",
            "key",
            "Key",
            "sort key",
            "sortKey",
            "Primary key",
            "primary_key",
            "Public key",
            "ssh_public_key",
            "SSH key",
            "hotkey",
            "Musical key",
            "spinach",
            "opinion",
            "Your opinion",
            "pinned",
            "Pinned items",
            "ping",
            "Ping interval",
            "pinyin",
            "Pin this tab to the sidebar?",
            "Drop a pin on the map",
            "Pattern",
            "Give the dog a pat",
            "compass",
            "bypass",
            "Bypass the cache?",
            "passenger",
            "Passenger count",
            "passport",
            "pass",
            "Number of passes",
            "secretary",
            "Secretary name",
            "secretariat",
            "description",
            "Description",
            "Password length",
            "password_min_length",
            "Password policy",
            "Which password manager do you use?",
            "Send a password reset link?",
            "Is the PDF password protected?",
            "passwordless",
            "Enable passwordless sign-in",
            "API key name",
            "Secrets manager",
            "Credit card type",
            "Which credit cards do you accept?",
            "Path to the private key file",
            "session id",
            "sessionId",
            "client id",
            "clientId",
            "seed",
            "Random seed",
            "Enable 2FA?",
            "MFA",
            "code",
            "Postal code",
            "zip code",
            "country code",
            "Language",
            "Preferred strategy",
            "Number of passes",
            "Confirm",
            "Cookie consent",
            "Niño",
            "Niños",
            "Spanish sin azúcar",
            "Tin can",
            "Palabra clave",
            "Schlüsselwort",
            "Benutzername",
            "Nom d'utilisateur",
            "Nombre de usuario",
            "用户名",
            "电子邮件",
            "公钥",
            "最大令牌数",
            "最大トークン数",
            "ユーザー名",
            "Имя пользователя",
            "Desenhar",
            "Senhor",
            "Confirmation email",
            "Backup schedule",
            "Recovery email",
            "Card holder name",
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter_map(|text| find_secret(text).map(|hit| format!("{text:?}: {hit:?}")))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    // covers: F5
    #[test]
    fn the_hit_names_the_longest_entry_at_the_first_position() {
        let cases: &[(&str, &str)] = &[
            (
                "Enter your GitHub personal access token",
                "personal access token",
            ),
            ("x_api_key", "api key"),
            ("apikey", "api key"),
            ("Contraseña", "contraseña"),
            ("clientSecret", "client secret"),
            ("Secret recovery phrase", "secret recovery phrase"),
            ("card security code", "card security code"),
            ("Password reset code", "reset code"),
            ("name and password", "password"),
        ];
        for &(text, term) in cases {
            assert_eq!(find_secret(text).map(|h| h.term), Some(term), "{text:?}");
        }
    }

    // covers: F5
    #[test]
    fn phrases_do_not_span_punctuation() {
        for text in ["api. Key", "Credit, card", "access (token)"] {
            let hit = find_secret(text);
            assert!(
                hit.is_none_or(|h| h.term != "api key" && h.term != "credit card"),
                "{text:?}: {hit:?}"
            );
        }
        // An about-word after a comma does not excuse the secret.
        assert!(find_secret("Password, length at least 8").is_some());
        assert!(find_secret("Password (length 8+)").is_some());
    }

    // covers: F5
    #[test]
    fn every_kind_is_described_and_in_the_vocabulary() {
        let kinds = [
            K::Password,
            K::Pin,
            K::ApiKey,
            K::Token,
            K::Secret,
            K::PrivateKey,
            K::SeedPhrase,
            K::RecoveryCode,
            K::OneTimeCode,
            K::PaymentCard,
            K::BankAccount,
            K::NationalId,
        ];
        for kind in kinds {
            let described = kind.describe();
            assert!(!described.is_empty() && described.is_ascii(), "{kind:?}");
            assert!(VOCABULARY.iter().any(|e| e.kind == kind), "{kind:?}");
        }
    }

    // covers: F5
    #[test]
    fn vocabulary_patterns_are_folded_single_words() {
        for entry in VOCABULARY {
            assert!(!entry.words.is_empty(), "{}", entry.term);
            for pattern in entry.words.iter().chain(entry.unless) {
                let core = pattern.trim_start_matches('*').trim_end_matches(['*', '~']);
                let words = Words::new(core);
                assert_eq!(words.list.len(), 1, "{pattern:?} is not one word");
                assert_eq!(words.folded, core, "{pattern:?} is not folded");
            }
            // Each entry finds itself, unless a guard or the about-words forbid it.
            let spelled: Vec<&str> = entry
                .words
                .iter()
                .map(|p| p.trim_start_matches('*').trim_end_matches(['*', '~']))
                .collect();
            let text = spelled.join(" ");
            if matches!(entry.guard, Guard::None) {
                assert!(find_secret(&text).is_some(), "{text:?} is not found");
            }
        }
    }
}
