"""The words that say what a number is: a payment card's (`_CARD_WORDS`) or an identity
document's (`_ID_CUES`), in the languages the gate reads. Shared by the payment and identifier
detectors and the write policy's split-number rule (notebook 02).
"""

from __future__ import annotations

import re


from helpers.detectors.normalize import _I


_CARD_WORDS = (r"(?:card|visa|mastercard|master card|amex|american express|diners|discover|jcb|"
               r"unionpay|"
               r"maestro|debit|credit|cc|carte|karte|tarjeta|carta|cart[aã]o|kaart)")

# Words that say "an identity document's number follows", in the text or in a keyword. Short
# acronyms count only in capitals ("SIN", "ID"); "sin" and "id" are words too.
_ID_CUES = re.compile(
    r"\b(?:ssn|social security|social insurance|sin (?:number|no\.?|#)|national insurance|ni "
    r"(?:number|no\.?)|"
    r"insurance number|tax file|medicare|aadhaa?r|uidai|pan (?:card|number|no\.?)|permanent "
    r"account number|"
    r"passport|travel document|travel doc|driv(?:er'?s?|ing|ers) ?licen[cs]e|licen[cs]e (?:number|"
    r"no\.?|#)|"
    r"licen[cs]e|permis de conduire|fuhrerschein|carnet de conducir|patente|rijbewijs|"
    r"tax (?:id|identification|number|code|reference|no\.?)|taxpayer|national id|identity (?:card|"
    r"number|"
    r"document|no\.?)|id (?:card|number|no\.?|#|document)|identification (?:number|no\.?|card)|"
    r"personal (?:id|number|code|identification)|citizen(?:ship)? (?:id|number|card)|resident "
    r"(?:id|card|permit)|"
    r"residence permit|green card|alien (?:registration|number)|visa (?:number|no\.?|grant)|"
    r"known travell?er(?: number)?|redress(?: number)?|global entry|nexus|trusted travell?er|"
    r"health card|"
    r"nhs number|voter id|social security number|steuer-?id|steuernummer|personalausweis|"
    r"personnummer|"
    r"codice fiscale|carte d'identite|numero fiscal|documento de identidad|burgerservicenummer|"
    # The same documents in French, Spanish, Italian, Portuguese, German and Dutch.
    r"passeport|pasaporte|passaporto|passaporte|reisepass\w*|paspoort|ausweis\w*|"
    r"pass-?(?:nr|nummer)|"
    r"securite sociale|seguridad social|seguranca social|previdenza sociale|"
    r"sozialversicherung\w*|rentenversicherung\w*|carte vitale|cedula|carta d'identita|"
    r"identiteitskaart|permis de sejour|aufenthaltstitel)\b"
    r"|\b(?-i:SSN|SIN|NINO|NI|TFN|PAN|TIN|ITIN|EIN|DL|ID|IDs|NIE|NIF|DNI|BSN|CPF|NRIC|FIN|HKID|UTR|"
    r"PPSN?|"
    r"CURP|RFC|PESEL|EPIC|CNIC|NIN|NID|KTN|TSA|SSS|UMID|PRC|RUT|CUIT|CUIL|RRN|MRZ|ABN|ACN|VAT|GST|"
    r"NHS)(?:\b|(?=\d))",
    _I,
)
