import { solveChallenge } from 'altcha-lib';

/**
 * The contact page's proof of work, off the page's thread: given the challenge of a 428, answers
 * with the X-Challenge-Solution value (the base64 ALTCHA payload), or null when there is none.
 */
interface IssuedChallenge {
  algorithm: string;
  challenge: string;
  salt: string;
  signature: string;
  maxnumber: number;
}

addEventListener('message', (event: MessageEvent<IssuedChallenge>) => {
  const issued = event.data;
  void solveChallenge(issued.challenge, issued.salt, issued.algorithm, issued.maxnumber).promise.then((solution) => {
    const payload = solution && { algorithm: issued.algorithm, challenge: issued.challenge, number: solution.number, salt: issued.salt, signature: issued.signature };
    postMessage(payload ? btoa(JSON.stringify(payload)) : null);
  });
});
